/**
 * Collectors sharded per hub, as deployed: three `npm run collector` processes on one Postgres, two
 * simulated ACM hubs over HTTPS. Each hub's clusters are swept by one collector; killing it moves its
 * shard to another within the lease; no cluster is ever swept by two collectors at once.
 */
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as registerHubRoute } from "@/app/api/v1/hubs/route";
import { ensureInitialAccounts } from "../auth/bootstrap";
import { hubMembers } from "../simulator/hub/scenario";
import { startHubSimulator, type HubSimulator } from "../simulator/hub/server";
import { eventually } from "../simulator/hub/testing";
import { getDb } from "../store/db";
import { findHubRecord } from "../store/hubs";
import { listShards, type ShardRow } from "../store/shards";
import { metricsText } from "../fleet/metrics";
import { useMigratedDatabase } from "../testing/database";
import { startScript } from "../testing/scriptProcess";
import { hubRegistrationBody } from "../testing/hubs";
import { request, signIn } from "../testing/routes";
import { syncHub } from "../hubs/sync";

const SECRET_KEY = randomBytes(32).toString("base64");
process.env.FLEETSKEW_SECRET_KEY = SECRET_KEY;
const db = useMigratedDatabase();
const LEASE_SECONDS = 3;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let hubA: HubSimulator;
let hubB: HubSimulator;
const collectors = new Map<number, { child: ChildProcess; output: string[] }>();

/** A collector process as `npm run collector` starts it, sweeping every 2 s. */
function startCollector(): void {
  const child = startScript("scripts/collector.ts", {
    NODE_ENV: "production",
    DATABASE_URL: db().url,
    FLEETSKEW_SECRET_KEY: SECRET_KEY,
    FLEETSKEW_SHARD_LEASE_SECONDS: String(LEASE_SECONDS),
    FLEETSKEW_SWEEP_INTERVAL_SECONDS: "2",
    FLEETSKEW_SWEEP_TIMEOUT_SECONDS: "10",
    FLEETSKEW_SWEEP_CONCURRENCY: "4",
  });
  const output: string[] = [];
  child.stdout.on("data", (d) => output.push(String(d)));
  child.stderr.on("data", (d) => output.push(String(d)));
  collectors.set(child.pid!, { child, output });
}

const pidOf = (worker: string) => Number(worker.split(":")[2]);

type Sweep = { cluster: string; hubId: string | null; at: number; durationMs: number; by: string };

/** Every sweep the schedule shows while the test runs (sampled often: a cluster is swept every 2 s). */
const seen = new Map<string, Sweep>();
let sampling = true;
async function sample(): Promise<void> {
  while (sampling) {
    const rows = await getDb().$queryRawUnsafe<{ cluster: string; hubId: string | null; at: Date; durationMs: number; by: string }[]>(
      `SELECT c."name" AS "cluster", c."hubId"::text AS "hubId", s."lastSweepAt" AS "at", s."lastDurationMs" AS "durationMs", s."lastSweptBy" AS "by"
         FROM "SweepSchedule" s JOIN "Cluster" c ON c."id" = s."clusterId" WHERE s."lastSweptBy" IS NOT NULL`,
    );
    for (const r of rows) seen.set(`${r.cluster}@${r.at.getTime()}`, { ...r, at: r.at.getTime() });
    await sleep(100);
  }
}

beforeAll(async () => {
  hubA = await startHubSimulator({ clusters: 10, seed: 1, permissionDelayMs: 0 });
  // The second hub's clusters have names of their own (a name taken by the first hub would not be registered).
  const taken = new Set(hubMembers(10, 1, (n) => n).map((m) => m.profile.name));
  hubB = await startHubSimulator({
    seed: 2,
    permissionDelayMs: 0,
    members: (url) => hubMembers(16, 2, url).filter((m) => !taken.has(m.profile.name)),
  });
  await ensureInitialAccounts({ dataDir: "/nonexistent", adminPassword: "admin password here", demo: false });
  const admin = await signIn("admin", "admin password here");
  for (const [name, sim] of [
    ["hub-a", hubA],
    ["hub-b", hubB],
  ] as const) {
    const response = await registerHubRoute(
      request("/api/v1/hubs", { method: "POST", cookie: admin, body: hubRegistrationBody(sim, name) }),
    );
    expect(response.status).toBe(201);
    await eventually(async () => {
      await syncHub((await findHubRecord(name))!);
      const hub = await findHubRecord(name);
      const n = await getDb().cluster.count({ where: { hubId: hub!.id, hubState: "available" } });
      return n >= 3 ? n : undefined;
    }, 30_000);
  }
}, 90_000);

afterAll(async () => {
  sampling = false;
  for (const { child } of collectors.values()) child.kill("SIGKILL");
  await Promise.all([hubA?.close(), hubB?.close()]);
});

/** Waits until both shards are held by two different live collectors and stay so for two renewals. */
async function settled(): Promise<ShardRow[]> {
  let last = "";
  let since = 0;
  return eventually(async () => {
    const rows = await listShards();
    const owners = rows.map((r) => r.owner);
    const key = owners.join(",");
    const ok = rows.length === 2 && rows.every((r) => r.held) && new Set(owners).size === 2;
    if (!ok || key !== last) {
      last = key;
      since = Date.now();
      return undefined;
    }
    return Date.now() - since > (LEASE_SECONDS * 1000 * 2) / 3 ? rows : undefined;
  }, 60_000);
}

/** Waits until every available cluster of the fleet was swept (started) after `after`; returns the latest sweep of each. */
async function sweptSince(after: number): Promise<Map<string, Sweep>> {
  const clusters = await getDb().cluster.count({ where: { hubState: "available" } });
  return eventually(async () => {
    const latest = new Map<string, Sweep>();
    for (const s of seen.values()) if (s.at > after && (latest.get(s.cluster)?.at ?? 0) < s.at) latest.set(s.cluster, s);
    return latest.size >= clusters ? latest : undefined;
  }, 60_000);
}

describe("three collector processes, two hubs", () => {
  it("sweeps each hub from one collector, moves a killed collector's hub to another within the lease, and never sweeps a cluster twice at once", async () => {
    void sample();
    for (let i = 0; i < 3; i++) startCollector();
    const shards = await settled();
    const ownerOf = new Map(shards.map((r) => [r.shard, r.owner!]));
    // Every cluster's sweeps after the shards settled come from its hub's holder.
    const settledAt = Date.now();
    for (const sweep of (await sweptSince(settledAt)).values()) expect(sweep.by).toBe(ownerOf.get(sweep.hubId!));

    // The holder of hub A's shard is killed mid-work.
    const hubAId = (await findHubRecord("hub-a"))!.id;
    const victim = ownerOf.get(hubAId)!;
    const killedAt = Date.now();
    collectors.get(pidOf(victim))!.child.kill("SIGKILL");
    const moved = await eventually(async () => {
      const row = (await listShards()).find((r) => r.shard === hubAId);
      return row?.held && row.owner !== victim ? row : undefined;
    }, 30_000);
    const handoverMs = Date.now() - killedAt;
    console.log(`hub-a's shard moved from ${victim} to ${moved.owner} ${handoverMs} ms after the kill (lease ${LEASE_SECONDS} s)`);
    // Within the lease, give or take one renewal period (a third of it) and the time to notice here.
    expect(handoverMs).toBeLessThan(LEASE_SECONDS * 1000 * (4 / 3) + 1_500);
    expect([...collectors.keys()]).toContain(pidOf(moved.owner!));
    // Hub A's clusters are swept again, by the new holder (one the victim held mid-sweep waits for its cluster lease).
    const after = await sweptSince(Date.now());
    for (const sweep of after.values()) expect(sweep.by).not.toBe(victim);
    for (const sweep of after.values()) if (sweep.hubId === hubAId) expect(sweep.by).toBe(moved.owner);

    // /metrics shows who holds what: two holders of one shard each, none unheld.
    const text = await metricsText();
    expect(text).toContain(`fleetskew_collector_shards{process="${moved.owner}"} `);
    expect(text).toMatch(/^fleetskew_collector_shards_unheld 0$/m);
    expect(text).not.toContain(`fleetskew_collector_shards{process="${victim}"}`);

    // No cluster was swept by two collectors at once, in anything the schedule showed.
    sampling = false;
    const byCluster = new Map<string, Sweep[]>();
    for (const s of seen.values()) byCluster.set(s.cluster, [...(byCluster.get(s.cluster) ?? []), s]);
    let compared = 0;
    for (const sweeps of byCluster.values()) {
      sweeps.sort((a, b) => a.at - b.at);
      for (let i = 1; i < sweeps.length; i++) {
        compared++;
        const [prev, next] = [sweeps[i - 1]!, sweeps[i]!];
        expect(next.at, `${next.cluster}: ${prev.by} then ${next.by}`).toBeGreaterThanOrEqual(prev.at + prev.durationMs);
      }
    }
    // At least two sweeps of every cluster compared (each is swept every 2 s throughout).
    expect(compared).toBeGreaterThanOrEqual(after.size);
    for (const { child, output } of collectors.values())
      if (child.exitCode !== null && child.signalCode !== "SIGKILL") throw new Error(`a collector exited: ${output.join("")}`);
  }, 180_000);
});
