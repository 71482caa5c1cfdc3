import { readFileSync } from "node:fs";
import type http from "node:http";
import path from "node:path";
import { expect, test } from "@playwright/test";
import pg from "pg";
import { Fleet } from "../server/simulator/cluster";
import { startSimulator, type SimulatorServer } from "../server/simulator/http";
import { kubeconfigFor } from "../server/simulator/kubeconfig";
import { generateFleet } from "../server/simulator/scenarios/generate";
import { call, createDeployment, type Deployment } from "./processes";

/**
 * Two web processes and two collector workers on one Postgres, against a simulated fleet over
 * HTTPS: a session made on one web process is valid on the other, every cluster is swept once per
 * interval (counted in the simulator's request log), a follower's write to a cluster happens once,
 * and a collector killed mid-sweep loses nothing.
 */
const INTERVAL_S = 8;
const SWEEP_TIMEOUT_S = 5;
// Collector.leaseMs(): twice the sweep's deadline and a margin as long as it (up to 30 s).
const SWEEP_LEASE_MS = SWEEP_TIMEOUT_S * 3000;
const LATENCY_MS = 200;
// A killed collector's shards (docs/operations.md) are taken by another within the lease and one renewal.
const SHARD_LEASE_S = 3;

type Logged = { at: number; method: string; cluster: string; path: string; status?: number };

test.describe.configure({ mode: "serial" });
test.setTimeout(240_000);

let fleet: Fleet;
let sim: SimulatorServer;
let deployment: Deployment;
const log: Logged[] = [];

test.beforeAll(async () => {
  fleet = new Fleet();
  // prod-east takes the bundle; eight more are only swept. No fault modes: failures would back off.
  for (const spec of generateFleet(9, 7)) fleet.add({ ...spec, faults: undefined });
  sim = await startSimulator(fleet);
  // The simulator's request log: every request, with the time it arrived.
  sim.server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => {
    const m = /^\/clusters\/([^/]+)(\/[^?]*)/.exec(req.url ?? "");
    if (!m) return;
    const entry: Logged = { at: Date.now(), method: req.method ?? "GET", cluster: m[1]!, path: m[2]! };
    log.push(entry);
    res.on("finish", () => (entry.status = res.statusCode));
  });
  deployment = await createDeployment({
    FLEETSKEW_SWEEP_INTERVAL_SECONDS: String(INTERVAL_S),
    FLEETSKEW_SWEEP_TIMEOUT_SECONDS: String(SWEEP_TIMEOUT_S),
    FLEETSKEW_KUBE_TIMEOUT_MS: "5000",
    FLEETSKEW_KUBE_RETRIES: "0",
    FLEETSKEW_SHARD_LEASE_SECONDS: String(SHARD_LEASE_S),
    // Every sweep reads every kind, so that the simulator's request log shows each sweep (watched
    // kinds are read from memory, and a steady sweep would send it nothing to count).
    FLEETSKEW_KUBE_WATCH_CLUSTERS: "0",
  });
});

test.afterAll(async () => {
  await deployment?.stop();
  await sim?.close();
});

async function query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: deployment.ownerUrl });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

async function until<T>(
  what: string,
  check: () => Promise<T | undefined | null | false>,
  timeoutMs: number,
  context = () => "",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs / 1000} s\n${context()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * When each sweep of a cluster began: its first read, the ClusterVersion (a sweep's reads are sent in
 * one order over two connections, so a later one, the MachineSets say, moves with the queue ahead of it).
 */
const sweepsOf = (cluster: string, from = 0) =>
  log
    .filter((l) => l.cluster === cluster && l.method === "GET" && /\/clusterversions\/version$/.test(l.path) && l.at >= from)
    .map((l) => l.at);
/** A cluster's requests from `from` to `to`, in seconds after `zero`: what a failed expectation shows. */
const requestsOf = (cluster: string, from: number, to: number, zero: number) =>
  log
    .filter((l) => l.cluster === cluster && l.at >= from && l.at <= to)
    .map((l) => `  ${((l.at - zero) / 1000).toFixed(2)} ${l.method} ${l.path} ${l.status ?? "(no answer)"}`)
    .join("\n");
const pinWrites = (from: number) => log.filter((l) => l.method === "POST" && /\/pinnedimagesets$/.test(l.path) && l.at >= from);

test("two web processes and two collectors share one database: sessions, sweeps, followers and a killed collector", async () => {
  const t0 = Date.now();
  const phases: string[] = [];
  const phase = (name: string) => phases.push(`${name} ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  // Both web processes start at once: one migrates, the other waits for it (an advisory lock).
  const [web1, web2] = await Promise.all([deployment.startWeb("web1"), deployment.startWeb("web2")]);
  const [collector1, collector2] = await Promise.all([deployment.startCollector("collector1"), deployment.startCollector("collector2")]);
  phase("started");
  const everyone = [web1, web2];
  const outputs = () => everyone.map((p) => `--- ${p.name}\n${p.output().slice(-3000)}`).join("\n");

  // A session made on one web process is valid on the other, and ending it there ends it everywhere.
  const signIn = await call(`${web1.url}/api/v1/session`, { json: { username: "admin", password: deployment.adminPassword } });
  expect(signIn.status, JSON.stringify(signIn.body)).toBe(200);
  const cookie = signIn.cookie!;
  const onWeb2 = await call(`${web2.url}/api/v1/session`, { cookie });
  expect(onWeb2.status).toBe(200);
  expect(onWeb2.body.user.username).toBe("admin");

  // Register the fleet through web1; every process sees it through the database.
  const kubeconfig = kubeconfigFor(fleet.list(), sim.url, sim.ca);
  for (const c of fleet.list()) {
    const created = await call(`${web1.url}/api/v1/clusters`, {
      cookie,
      json: { name: c.name, source: { type: "kubeconfig", kubeconfig, context: c.name } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  }
  const registeredAt = Date.now();
  phase("registered");
  // Slow answers keep sweeps in flight long enough to kill a collector in the middle of one.
  for (const c of fleet.list()) fleet.setFaults(c.name, { latencyMs: LATENCY_MS });

  // A bundle applied on prod-east through web2: one PinnedImageSet create per pool.
  const manifest = readFileSync(path.join(__dirname, "../docs/examples/bundle-4.19.11.json"));
  const { createHash } = await import("node:crypto");
  const digest = `${createHash("sha256").update(manifest).digest("hex")}`;
  expect((await call(`${web2.url}/api/v1/bundles/vetted`, { cookie, json: { digest, note: "mirrored" } })).status).toBe(201);
  const form = new FormData();
  form.set("manifest", new Blob([manifest], { type: "application/json" }), "bundle-4.19.11.json");
  expect((await call(`${web2.url}/api/v1/bundles`, { cookie, form })).status).toBe(201);
  const checked = await call(`${web2.url}/api/v1/bundles/${encodeURIComponent(digest)}/precheck?cluster=prod-east`, { cookie });
  expect(checked.status, JSON.stringify(checked.body)).toBe(200);
  const confirmedWarnings = (checked.body.checks as { key: string; status: string }[]).filter((c) => c.status === "warn").map((c) => c.key);
  const appliedFrom = Date.now();
  const applied = await call(`${web2.url}/api/v1/bundle-applications`, {
    cookie,
    json: { digest, cluster: "prod-east", confirmedWarnings },
  });
  expect(applied.status, JSON.stringify(applied.body)).toBe(201);
  const pools = applied.body.application.pools as { set: string }[];
  // Each set created once (a follower pass that met the application still "applying" may have
  // tried one too, and been told it exists).
  expect(pinWrites(appliedFrom).filter((w) => w.status === 201)).toHaveLength(pools.length);
  // No follower pass in flight (none met the application half-applied and is still at it).
  await until(
    "the follower to be idle",
    async () =>
      (
        await query<{ running: number }>(
          `SELECT count(*)::int AS running FROM pgboss.job WHERE name = 'follow-applications' AND state = 'active'`,
        )
      )[0]?.running === 0,
    30_000,
  );

  // Someone deletes a set on the cluster: the follower recreates it, once, though both web processes follow.
  const prodEast = fleet.get("prod-east")!;
  const setKind = prodEast.kindFor({ apiVersion: "machineconfiguration.openshift.io/v1", kind: "PinnedImageSet" })!;
  const victim = pools[0]!.set;
  const deletedAt = Date.now();
  prodEast.store.delete(setKind, undefined, victim);
  // Slower still, so that two followers acting at once would both find it missing before either recreated it.
  fleet.setFaults("prod-east", { latencyMs: 1_500 });
  await until(
    "the deleted PinnedImageSet's recreation",
    async () => prodEast.store.list(setKind, undefined).some((s) => s.metadata.name === victim),
    60_000,
    outputs,
  );

  phase("follower");
  // Kill a collector worker while it holds leases on clusters it is sweeping (whichever is first seen
  // doing so: the shards, and so the clusters, each holds depend on the clusters' ids).
  const workers = [collector1, collector2];
  const leasedBy = async (owner: string) =>
    (
      await query<{ name: string }>(
        `SELECT c."name" FROM "SweepSchedule" s JOIN "Cluster" c ON c."id" = s."clusterId"
         WHERE s."leaseOwner" = $1 AND s."leaseExpiresAt" > (now() AT TIME ZONE 'UTC') AND c."name" <> 'prod-east'`,
        [owner],
      )
    ).map((r) => r.name);
  const { killed, holding } = await until(
    "a collector worker holding a sweep's lease",
    async () => {
      for (const worker of workers) {
        const names = await leasedBy(worker.processName()!);
        if (names.length) return { killed: worker, holding: names };
      }
      return null;
    },
    60_000,
    () => workers.map((w) => `--- ${w.name}\n${w.output().slice(-2000)}`).join("\n"),
  );
  const survivor = workers.find((w) => w !== killed)!;
  const killedName = killed.processName()!;
  killed.child.kill("SIGKILL");
  const killedAt = Date.now();
  expect(await killed.exited).toBeNull();
  // What it held when it died: it may have claimed more between the look above and the kill.
  const held = [...new Set([...holding, ...(await leasedBy(killedName))])];

  // Nothing lost: every cluster it held is swept by another process once its lease expires, and all others go on.
  let lastRows: unknown[] = [];
  const swept = fleet
    .list()
    .map((c) => c.name)
    .filter((n) => n !== "prod-east");
  await until(
    "every cluster swept again after the kill",
    async () => {
      const rows = await query<{ name: string; owner: string | null; at: Date | null; failures: number }>(
        `SELECT c."name", s."leaseOwner" AS owner, s."lastSweepAt" AS at, s."failures"
         FROM "SweepSchedule" s JOIN "Cluster" c ON c."id" = s."clusterId"`,
      );
      lastRows = rows;
      return swept.every((n) => sweepsOf(n, killedAt + 500).length > 0) &&
        held.every((n) => rows.some((r) => r.name === n && r.owner !== killedName && r.failures === 0))
        ? rows
        : null;
    },
    SWEEP_LEASE_MS + 3 * INTERVAL_S * 1000,
    () =>
      `${outputs()}\n--- ${survivor.name}\n${survivor.output().slice(-2000)}\n--- sweeps since the kill (s after it) of ${held.join(", ")} held\n` +
      swept
        .map(
          (n) =>
            `${n}: ${sweepsOf(n, killedAt)
              .map((t) => ((t - killedAt) / 1000).toFixed(1))
              .join(" ")}`,
        )
        .join("\n") +
      `\n${JSON.stringify(lastRows)}`,
  );
  phase("recovered");
  for (const name of held) expect(sweepsOf(name, killedAt + 1000).length, name).toBeGreaterThan(0);
  const lastSweeps = await query<{ name: string; failures: number; error: string | null }>(
    `SELECT c."name", s."failures", s."lastError" AS error FROM "SweepSchedule" s JOIN "Cluster" c ON c."id" = s."clusterId"`,
  );
  for (const row of lastSweeps.filter((r) => swept.includes(r.name))) expect(row, row.name).toMatchObject({ failures: 0, error: null });

  // Let every cluster be swept a few more times, then read the log.
  await new Promise((r) => setTimeout(r, INTERVAL_S * 1000));
  const end = Date.now();

  // The follower acted once, in one web process: it listed the cluster's sets and created the one
  // missing. Both web processes following at once would each have found it missing and created it
  // (a second create, answered 409).
  const writes = pinWrites(deletedAt);
  expect(
    writes.map((w) => w.status),
    JSON.stringify(writes),
  ).toEqual([201]);

  // Every cluster swept once per interval: never twice within one (a sweep's next is due an interval,
  // ±10%, after it began), and never skipped: at most an interval, ±10%, plus the time a due cluster
  // waits to be claimed (collectors look every 5 s) apart, or the killed collector's lease.
  const report: string[] = [];
  for (const name of swept) {
    const at = sweepsOf(name, registeredAt);
    const gaps = at.slice(1).map((t, i) => t - at[i]!);
    report.push(`${name}: ${gaps.map((g) => (g / 1000).toFixed(1)).join(" ")}`);
    expect(at.length, name).toBeGreaterThanOrEqual(Math.floor((end - registeredAt) / ((INTERVAL_S * 1.1 + 5) * 1000 + SWEEP_LEASE_MS / 4)));
    for (const [i, gap] of gaps.entries())
      expect(
        gap,
        `${name} swept twice within an interval (${killed.name} killed at 0 s):\n${report.join("\n")}\n${name}'s requests:\n` +
          requestsOf(name, at[i]! - 1_000, at[i + 1]! + 3_000, killedAt),
      ).toBeGreaterThan(INTERVAL_S * 900 - 1_500);
    // The killed collector's other clusters wait for its shards to move as well.
    const allowed = (INTERVAL_S * 1.1 + 5 + 4 + (SHARD_LEASE_S * 4) / 3) * 1000 + (held.includes(name) ? SWEEP_LEASE_MS : 0);
    for (const gap of gaps) expect(gap, `${name} waited too long between sweeps:\n${report.join("\n")}`).toBeLessThan(allowed);
  }
  console.log(
    `phases: ${phases.join(", ")}\nseconds between sweeps, per cluster (${killed.name} killed holding ${held.join(", ")}):\n${report.join("\n")}`,
  );

  // The background jobs ran, each in one process at a time; /metrics labels processes by role.
  // No FLEETSKEW_METRICS_TOKEN here: an admin's session reads /metrics.
  const metrics = await call(`${web2.url}/metrics`, { cookie });
  expect(metrics.status).toBe(200);
  expect(metrics.body).toMatch(/^fleetskew_processes\{role="web"\} 2$/m);
  const rss = [...(metrics.body as string).matchAll(/^fleetskew_process_resident_memory_bytes\{[^}]*role="(\w+)"[^}]*\} (\d+)$/gm)];
  expect(rss.length).toBeGreaterThanOrEqual(3);
  console.log(`resident memory: ${rss.map((m) => `${m[1]} ${Math.round(Number(m[2]) / 2 ** 20)} MiB`).join(", ")}`);
  // The killed collector is still listed for a while, with a heartbeat as old as its death.
  const age = new RegExp(`^fleetskew_process_heartbeat_age_seconds\\{process="${killedName}",[^}]*\\} ([\\d.]+)$`, "m").exec(metrics.body);
  expect(Number(age?.[1])).toBeGreaterThan((Date.now() - killedAt) / 1000 - 2);
  expect(metrics.body).toMatch(/^fleetskew_sweeps_total\{process="collector:[^"]+",role="collector"\} \d+$/m);
  expect(metrics.body).toMatch(/^fleetskew_background_job_runs_total\{task="follow-applications"\} [1-9]\d*$/m);

  // Signing out on web2 ends the session on web1 too.
  expect((await call(`${web2.url}/api/v1/session`, { method: "DELETE", cookie })).status).toBe(204);
  expect((await call(`${web1.url}/api/v1/session`, { cookie })).status).toBe(401);
});
