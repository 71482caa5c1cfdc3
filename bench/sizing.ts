/**
 * Sizing per 1,000 clusters, for docs/operations.md: a real collector process (`npm run
 * collector`'s script, its heap capped as there) sweeps N simulated clusters (a child process, over
 * HTTPS) into a fresh Postgres database for a while, at a short interval so that several passes fit.
 * Prints the collector's CPU per sweep and peak memory, Postgres's CPU per sweep, and what the
 * database holds: after first contact, and how it grows per steady pass.
 *
 *   BENCH_SIZING_CLUSTERS=1000     clusters
 *   BENCH_SIZING_SECONDS=330       how long the collector runs (first contact, then two reports a minute apart)
 *   BENCH_SIZING_INTERVAL=60       the sweep interval it runs with, in seconds
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { closeDb } from "../server/store/db";
import { migrate } from "../server/store/migrate";
import { createTestDatabase, migrationsDir } from "../server/testing/postgres";
import { fmt, procStatus, registerFleet, startSimulator } from "./common";

const CLUSTERS = Number(process.env.BENCH_SIZING_CLUSTERS ?? 1000);
const SECONDS = Number(process.env.BENCH_SIZING_SECONDS ?? 330);
const INTERVAL = Number(process.env.BENCH_SIZING_INTERVAL ?? 60);
// Clock ticks per second in /proc/<pid>/stat (USER_HZ, 100 on Linux).
const TICK = 100;
const log = (line: string) => console.log(line);

/** CPU seconds (user + system) of a process so far, from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICK;
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "fleetskew-sizing-"));
  const db = await createTestDatabase();
  process.env.FLEETSKEW_SECRET_KEY ??= randomBytes(32).toString("base64");
  const client = new pg.Client({ connectionString: db.url });
  const sim = await startSimulator(CLUSTERS, dir);
  try {
    await migrate(db.url, { dir: migrationsDir });
    process.env.DATABASE_URL = db.url;
    await client.connect();
    const { names } = await registerFleet(sim.kubeconfig);
    await closeDb();
    const size = async () => Number((await client.query("SELECT pg_database_size(current_database()) AS n")).rows[0].n);
    const tables = async () =>
      (
        await client.query(
          `SELECT relname AS name, pg_total_relation_size(relid) AS bytes FROM pg_stat_user_tables ORDER BY pg_total_relation_size(relid) DESC LIMIT 6`,
        )
      ).rows as { name: string; bytes: string }[];
    const firstContactDone = async () =>
      Number((await client.query(`SELECT count(*) AS n FROM "SweepSchedule" WHERE "lastSweepAt" IS NOT NULL`)).rows[0].n) >= names.length;
    const backends = async () =>
      (await client.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)).rows.map(
        (r: { pid: number }) => r.pid,
      );
    const emptyBytes = await size();
    log(`sizing: ${names.length} simulated clusters, a collector process sweeping every ${INTERVAL} s for ${SECONDS} s`);

    const collector = spawn(
      process.execPath,
      ["--max-old-space-size=768", "--max-semi-space-size=32", "--import", "tsx", path.join(__dirname, "../scripts/collector.ts")],
      {
        env: {
          ...process.env,
          NODE_ENV: "production",
          DATABASE_URL: db.url,
          FLEETSKEW_MIGRATE: "0",
          FLEETSKEW_SWEEP_INTERVAL_SECONDS: String(INTERVAL),
        },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    const pid = collector.pid!;
    // The collector reports its own count of sweeps every minute: CPU is read at each report.
    type Report = { sweeps: number; cpu: number; pgCpu: number; afterFirstContact: boolean };
    const reports: Report[] = [];
    let firstContact = false;
    collector.stdout!.on("data", (d: Buffer) => {
      const m = /fleetskew collector: (\d+) sweeps/.exec(d.toString());
      if (m) reports.push({ sweeps: Number(m[1]), cpu: cpuSeconds(pid), pgCpu: pgCpuNow(), afterFirstContact: firstContact });
    });
    const started = Date.now();
    let pgPids = new Set<number>();
    const pgCpuSeen = new Map<number, number>();
    const pgCpuNow = () => [...pgCpuSeen.values()].reduce((a, b) => a + b, 0);
    const samplePostgres = async () => {
      pgPids = new Set([...pgPids, ...(await backends())]);
      for (const p of pgPids) {
        try {
          pgCpuSeen.set(p, cpuSeconds(p));
        } catch {
          // exited: its last reading stays
        }
      }
    };
    let first: { atMs: number; bytes: number } | undefined;
    while (Date.now() - started < SECONDS * 1000) {
      await new Promise((r) => setTimeout(r, 1000));
      await samplePostgres();
      if (!first && (await firstContactDone())) {
        firstContact = true;
        first = { atMs: Date.now() - started, bytes: await size() };
        log(`first contact with every cluster after ${fmt(first.atMs / 1000)} s`);
      }
    }
    const end = { bytes: await size() };
    const peakRss = procStatus(pid, "VmHWM");
    collector.kill("SIGTERM");
    await new Promise((r) => collector.on("exit", r));

    const steady = reports.filter((r) => r.afterFirstContact);
    if (!first || steady.length < 2)
      throw new Error(
        `the collector did not reach every cluster and then sweep for two more minutes within ${SECONDS} s; run longer (BENCH_SIZING_SECONDS)`,
      );
    const [a, b] = [steady[0]!, steady.at(-1)!];
    const steadySweeps = b.sweeps - a.sweeps;
    const perK = 1000 / names.length;
    const steadyCpuPerSweep = (b.cpu - a.cpu) / Math.max(1, steadySweeps);
    const steadyPgPerSweep = (b.pgCpu - a.pgCpu) / Math.max(1, steadySweeps);
    const passes = steadySweeps / names.length;
    log(`\nper ${names.length} clusters (figures scaled to 1,000 in brackets):`);
    log(`  collector CPU until first contact with every cluster: ${fmt(a.cpu)} s for ${a.sweeps} sweeps`);
    log(
      `  collector CPU, steady: ${fmt(steadyCpuPerSweep * 1000)} ms per sweep over ${steadySweeps} sweeps; ` +
        `at a 300 s interval ${fmt((steadyCpuPerSweep * names.length) / 300, 3)} cores [${fmt((steadyCpuPerSweep * names.length * perK) / 300, 3)}]`,
    );
    log(`  Postgres CPU, steady: ${fmt(steadyPgPerSweep * 1000)} ms per sweep (backends seen: ${pgPids.size})`);
    log(`  collector peak RSS: ${fmt(peakRss, 0)} MiB (heap capped at 768 MiB)`);
    log(
      `  database: empty ${fmt(emptyBytes / 2 ** 20)} MiB; after first contact ${fmt(first.bytes / 2 ** 20)} MiB [${fmt(((first.bytes - emptyBytes) * perK) / 2 ** 20)} MiB over empty per 1,000]`,
    );
    log(
      `  database growth from first contact to the end: ${fmt((end.bytes - first.bytes) / 2 ** 20)} MiB ` +
        `(${fmt((SECONDS * 1000 - first.atMs) / 1000, 0)} s of steady sweeps, about ${fmt(passes)} passes a minute, dead rows before vacuum included)`,
    );
    for (const t of await tables()) log(`    ${t.name}: ${fmt(Number(t.bytes) / 2 ** 20)} MiB`);
  } finally {
    sim.child.kill();
    await client.end().catch(() => undefined);
    await closeDb();
    await db.drop();
    for (const f of readdirSync(dir)) rmSync(path.join(dir, f), { force: true });
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
