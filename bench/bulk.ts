/**
 * Bulk registration from one kubeconfig: a simulated fleet of N clusters (a child process), one
 * context each, previewed, made into a job and worked through by the registration runner at two
 * concurrencies, each into a fresh Postgres database. Prints its figures with the target next to
 * them; a missed target is reported, not fatal. See docs/benchmarks.md.
 *
 *   BENCH_BULK_CONTEXTS=500          contexts in the kubeconfig (the most one job takes)
 *   BENCH_BULK_CONCURRENCY=16,32     runner concurrencies, one run each
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Actor } from "../server/auth/actor";
import { createRegistrationJob, previewBulkRegistration, registrationJobProgress } from "../server/clusters/bulk";
import { drainRegistrations } from "../server/clusters/bulkRunner";
import { closeDb } from "../server/store/db";
import { migrate } from "../server/store/migrate";
import { createTestDatabase, migrationsDir } from "../server/testing/postgres";
import { fmt, startSimulator } from "./common";

const CONTEXTS = Number(process.env.BENCH_BULK_CONTEXTS ?? 500);
const CONCURRENCIES = (process.env.BENCH_BULK_CONCURRENCY ?? "16,32").split(",").map((s) => Number(s.trim()));
/** 500 clusters onboarded within two minutes at the default concurrency of one process. */
const TARGET_SECONDS = 120;

const log = (line: string) => console.log(line);
const actor = { user: { username: "bench", role: "admin" }, ip: null } as unknown as Actor;

async function run(kubeconfig: string, concurrency: number) {
  const db = await createTestDatabase();
  try {
    await migrate(db.url, { dir: migrationsDir });
    process.env.DATABASE_URL = db.url;
    let t = performance.now();
    const { contexts } = await previewBulkRegistration(kubeconfig);
    const previewMs = performance.now() - t;
    t = performance.now();
    const job = await createRegistrationJob({ kubeconfig, contexts: contexts.map((c) => ({ context: c.context })), labels: {} }, actor);
    const createMs = performance.now() - t;
    t = performance.now();
    await drainRegistrations(concurrency);
    let done = await registrationJobProgress(job.id);
    while (!done?.finishedAt) {
      await new Promise((r) => setTimeout(r, 100));
      done = await registrationJobProgress(job.id);
    }
    const seconds = (performance.now() - t) / 1000;
    const c = done.counts;
    log(`  concurrency ${concurrency}:`);
    log(
      `    preview of ${contexts.length} contexts: ${fmt(previewMs, 0)} ms; job created (sealed, one transaction): ${fmt(createMs, 0)} ms`,
    );
    log(`    tested and registered in ${fmt(seconds)} s = ${fmt(c.total / seconds)} contexts/s`);
    log(`    ${c.registered} registered, ${c.duplicate} duplicates, ${c.failed} failed`);
    return seconds;
  } finally {
    await closeDb();
    await db.drop();
  }
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "fleetskew-bench-bulk-"));
  process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
  process.env.FLEETSKEW_DATA_DIR = path.join(dir, "data");
  delete process.env.FLEETSKEW_DATABASE_MODE;
  log(`machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown"}), ${fmt(os.totalmem() / 2 ** 30)} GiB`);
  log(`bulk registration of ${CONTEXTS} simulated clusters from one kubeconfig`);
  const sim = await startSimulator(CONTEXTS, dir);
  try {
    const figures = new Map<number, number>();
    for (const concurrency of CONCURRENCIES) figures.set(concurrency, await run(sim.kubeconfig, concurrency));
    const atDefault = figures.get(16);
    if (atDefault !== undefined)
      log(
        `  target: ${CONTEXTS} contexts within ${TARGET_SECONDS} s at the default concurrency (16): ${atDefault <= TARGET_SECONDS ? "PASS" : `MISS by ${fmt(atDefault - TARGET_SECONDS)} s`}`,
      );
  } finally {
    sim.child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error("bench failed:", error);
  process.exit(1);
});
