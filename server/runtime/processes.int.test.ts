import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { parse } from "yaml";
import { schemaProblems } from "../../deploy/schemas";
import { ConfigError } from "../config/env";
import { metricsText } from "../fleet/metrics";
import { parseSecretKey } from "../secrets/secretBox";
import type { Keyring } from "../secrets/keyring";
import { agreeOnSecretKey, keyFingerprint } from "../secrets/sharedKey";
import { getDb } from "../store/db";
import { listJobs } from "../store/processes";
import { addWorkerStats } from "../store/sweeps";
import { useMigratedDatabase } from "../testing/database";
import { startHeartbeat } from "./heartbeat";
import { processIdentity } from "./identity";
import { defineJob, defineRecurringJob, enqueue, JobSystem } from "./jobs";

/** What several processes on one database agree on: the secret key, background jobs, /metrics. */
const db = useMigratedDatabase();
const root = path.resolve(__dirname, "../..");

const newKey = () => randomBytes(32).toString("base64");
const ring = (current: string, ...old: string[]): Keyring => {
  const keys = [current, ...old].map((k) => parseSecretKey(k));
  return { current: keys[0]!, keys, source: "environment" };
};
const keyA = newKey();
const keyB = newKey();
const keyC = newKey();

describe("one secret key for all processes", () => {
  it("records the first process's key by fingerprint, never the key, and lets processes with that key start", async () => {
    expect(await agreeOnSecretKey(ring(keyA), "web:a")).toEqual({ outcome: "recorded" });
    expect(await agreeOnSecretKey(ring(keyA), "web:b")).toEqual({ outcome: "agreed" });
    const row = (await getDb().secretKeyRecord.findUnique({ where: { id: 1 } }))!;
    expect(row.fingerprint).toBe(keyFingerprint(parseSecretKey(keyA)));
    expect(JSON.stringify(row)).not.toContain(keyA);
    expect(JSON.stringify(row)).not.toContain(Buffer.from(keyA, "base64").toString("hex"));
  });

  it("refuses a process with another key, naming both key ids", async () => {
    const a = parseSecretKey(keyA).id;
    const b = parseSecretKey(keyB).id;
    const refused = agreeOnSecretKey(ring(keyB), "web:c");
    await expect(refused).rejects.toThrow(ConfigError);
    await expect(agreeOnSecretKey(ring(keyB), "web:c")).rejects.toThrow(
      new RegExp(`seals secrets with key ${b}, but the other processes on this database use key ${a} \\(recorded by web:a`),
    );
  });

  it("rotates when the recorded key is one of the process's old keys; the old configuration is then refused", async () => {
    expect(await agreeOnSecretKey(ring(keyB, keyA), "web:new")).toEqual({ outcome: "rotated", previousKeyId: parseSecretKey(keyA).id });
    expect(await agreeOnSecretKey(ring(keyB, keyA), "collector:new")).toEqual({ outcome: "agreed" });
    await expect(agreeOnSecretKey(ring(keyA), "web:old")).rejects.toThrow(/use key/);
  });

  it("a collector process with another key refuses to start, with one line that says what to do", async () => {
    const run = spawn(process.execPath, ["--import", "tsx", path.join(root, "scripts/collector.ts")], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", NODE_ENV: "production", DATABASE_URL: db().url, FLEETSKEW_SECRET_KEY: keyC },
    });
    let output = "";
    run.stdout.on("data", (d) => (output += d));
    run.stderr.on("data", (d) => (output += d));
    const code = await new Promise((resolve) => run.on("exit", resolve));
    expect(code, output).toBe(1);
    expect(output.trim()).toMatch(
      new RegExp(
        `^fleetskew: this process seals secrets with key ${parseSecretKey(keyC).id}, but the other processes on this database use key ${parseSecretKey(keyB).id} .*FLEETSKEW_SECRET_KEYS_OLD`,
      ),
    );
  });
});

describe("background jobs in the job system", () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const systems: JobSystem[] = [];
  /** One process's job system (each test plays several processes on one database). */
  const aProcess = () => {
    const system = new JobSystem(true, () => undefined);
    systems.push(system);
    return system;
  };
  afterAll(() => Promise.all(systems.map((s) => s.stop())));
  const waiting = async (name: string) =>
    (
      await getDb().$queryRawUnsafe<{ inSeconds: number }[]>(
        `SELECT EXTRACT(EPOCH FROM (start_after - now()))::float8 AS "inSeconds" FROM pgboss.job WHERE name = $1 AND state = 'created'`,
        name,
      )
    ).map((r) => r.inSeconds);

  it("a recurring job runs once between many processes, and not again until its interval has passed", async () => {
    let runs = 0;
    const once = defineRecurringJob({
      name: "test-once",
      everyMs: 60_000,
      leaseMs: 30_000,
      run: async () => {
        runs++;
        await sleep(200);
      },
    });
    const processes = [aProcess(), aProcess(), aProcess(), aProcess()];
    await Promise.all(processes.map((p) => p.work([once])));
    // Every process asks for a run as it starts: one waits, the others' are dropped.
    await Promise.all(processes.map(() => enqueue(once, {})));
    await expect.poll(() => runs, { timeout: 10_000 }).toBe(1);
    // Two more polls of every process: nobody runs it again; the next run waits an interval away.
    await sleep(4_500);
    expect(runs).toBe(1);
    const next = await waiting("test-once");
    expect(next).toHaveLength(1);
    expect(next[0]).toBeGreaterThan(50);
    await Promise.all(processes.map(() => enqueue(once, {})));
    expect(await waiting("test-once")).toHaveLength(1);
    expect((await listJobs()).find((j) => j.name === "test-once")).toMatchObject({ runs: 1, failures: 0, lastError: null });
  });

  it("are taken over when their holder dies mid-run: its lease runs out and another process retries it", async () => {
    let attempts: number[] = [];
    const takeover = defineJob(
      "test-takeover",
      z.object({ cluster: z.string() }),
      async (_, context) => {
        attempts.push(context.attempt);
        // The first attempt never ends, as in a process killed mid-run.
        if (context.attempt === 1) await new Promise(() => undefined);
      },
      { leaseMs: 1_000, retryLimit: 2 },
    );
    const dead = aProcess();
    await dead.work([takeover]);
    await enqueue(takeover, { cluster: "prod-east" });
    await expect.poll(() => attempts, { timeout: 10_000 }).toEqual([1]);
    dead.abandon();
    const alive = aProcess();
    // Held: nobody else runs it, even after maintenance, while the lease lasts.
    await alive.maintain();
    expect(await alive.drain(takeover)).toBe(0);
    await sleep(1_300);
    await alive.maintain();
    expect(await alive.drain(takeover)).toBe(1);
    expect(attempts).toEqual([1, 2]);
    attempts = [];
  });

  it("keep their lease while a run outlasts it, and count failures", async () => {
    let started = false;
    let finished = false;
    const long = defineRecurringJob({
      name: "test-renew",
      everyMs: 60_000,
      leaseMs: 1_500,
      run: async () => {
        started = true;
        await sleep(2_500);
        finished = true;
        throw new Error("the cluster said no");
      },
    });
    const holder = aProcess();
    await holder.work([long]);
    await enqueue(long, {});
    await expect.poll(() => started, { timeout: 5_000 }).toBe(true);
    await sleep(1_800);
    // Past the first lease's length, yet renewed: maintenance leaves it, nobody else runs it.
    const other = aProcess();
    await other.maintain();
    expect(await other.drain(long)).toBe(0);
    expect(finished).toBe(false);
    await expect.poll(() => finished, { timeout: 5_000 }).toBe(true);
    // The next run, queued as this one began, is the only one waiting.
    expect(await waiting("test-renew")).toHaveLength(1);
    await expect
      .poll(async () => (await listJobs()).find((j) => j.name === "test-renew"), { timeout: 5_000 })
      .toMatchObject({ runs: 1, failures: 1, lastError: "the cluster said no" });
  });
});

describe("/metrics, labelled by process", () => {
  it("reports every process's heartbeat and sweeps with its name and role", async () => {
    const me = processIdentity("web");
    await startHeartbeat(me, () => undefined).beat();
    await addWorkerStats(me.name, { sweeps: 3, errors: 1, durationMs: 1200 });
    const text = await metricsText();
    const labels = `process="${me.name}",role="web",host="${me.host}",pid="${process.pid}"`;
    expect(text).toMatch(
      new RegExp(`^fleetskew_process_resident_memory_bytes\\{${labels.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\} \\d+$`, "m"),
    );
    expect(text).toContain(`fleetskew_sweeps_total{process="${me.name}",role="web"} 3`);
    expect(text).toContain(`fleetskew_sweep_errors_total{process="${me.name}",role="web"} 1`);
    expect(text).toContain('fleetskew_processes{role="web"} 1');
    expect(text).toContain('fleetskew_processes{role="collector"} 0');
    expect(text).toMatch(/^fleetskew_background_job_runs_total\{task="test-once"\} 1$/m);
    expect(text).toMatch(/^fleetskew_acknowledgements_pending 0$/m);
  });
});

describe("deploy/monitoring/prometheusrule.yaml", () => {
  const file = readFileSync(path.join(root, "deploy/monitoring/prometheusrule.yaml"), "utf8");
  const rule = parse(file) as { spec: { groups: { rules: { alert: string; expr: string }[] }[] } };

  it("is a valid PrometheusRule with the alerts operations.md describes", async () => {
    expect(await schemaProblems(rule as unknown as Record<string, unknown>)).toEqual([]);
    const alerts = rule.spec.groups.flatMap((g) => g.rules.map((r) => r.alert));
    expect(alerts).toEqual(expect.arrayContaining(["FleetskewCollectorStale", "FleetskewSweepsFailing", "FleetskewApprovalsPending"]));
    const docs = readFileSync(path.join(root, "docs/operations.md"), "utf8");
    for (const alert of alerts) expect(docs, alert).toContain(alert);
  });

  it("names only metrics that /metrics exports (fleet-alerts.yaml too)", async () => {
    const exported = new Set([...(await metricsText()).matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
    const fleet = parse(readFileSync(path.join(root, "deploy/monitoring/fleet-alerts.yaml"), "utf8")) as typeof rule;
    const named = new Set(
      [...rule.spec.groups, ...fleet.spec.groups].flatMap((g) =>
        g.rules.flatMap((r) => [...r.expr.matchAll(/\bfleetskew_[a-z_]+/g)].map((m) => m[0])),
      ),
    );
    // Also metrics named in annotations' queries.
    for (const m of file.matchAll(/query "[^"]*?\b(fleetskew_[a-z_]+)/g)) named.add(m[1]!);
    expect(named.size).toBeGreaterThan(12);
    for (const name of named) expect(exported, `${name} is not exported by /metrics`).toContain(name);
  });
});
