/**
 * A bundle rollout over 1,000 simulated clusters, end to end: the fleet swept, the bundle vetted and
 * uploaded, the plan made and approved, then the runner's ticks until the rollout completes — each
 * cluster's PinnedImageSets created, every node's pre-load followed, the upgrade started and
 * followed, the sets unpinned. Reports the wall time, the resident memory of the process that runs
 * the runner (the console's background process), and the rows written to Postgres.
 *
 *   node --import tsx bench/bundleRollout.ts        (BENCH_BUNDLE_CLUSTERS=1000, BENCH_BUNDLE_SPEED=3600)
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { uploadBundle, vetBundle } from "../server/bundles/bundles";
import { Collector } from "../server/collector/collector";
import type { BundleManifest } from "../server/domain/bundleManifest";
import { RolloutRequestSchema } from "../server/domain/rollouts/request";
import { changeRollout, proposeRollout, rolloutView } from "../server/rollouts/manage";
import { advanceRollouts } from "../server/rollouts/runner";
import { closeDb, getPool } from "../server/store/db";
import { migrate } from "../server/store/migrate";
import { makeAllDue } from "../server/store/sweeps";
import { testActor } from "../server/testing/actors";
import { testCollectorOptions } from "../server/testing/fleet";
import { createTestDatabase, migrationsDir } from "../server/testing/postgres";
import { fmt, procStatus, registerFleet } from "./common";

const SIZE = Number(process.env.BENCH_BUNDLE_CLUSTERS ?? 1_000);
const SPEED = Number(process.env.BENCH_BUNDLE_SPEED ?? 3_600);

const hex = (s: string) => createHash("sha256").update(s).digest("hex");
const release = "4.19.11";
const manifest: BundleManifest = {
  apiVersion: "fleetskew.io/v1",
  kind: "UpgradeBundle",
  release: { version: release, image: `quay.io/openshift-release-dev/ocp-release@sha256:${hex(release)}` },
  images: [
    { name: `quay.io/openshift-release-dev/ocp-release@sha256:${hex(release)}`, sizeBytes: 2 * 1024 ** 3 },
    ...[1, 2].map((i) => ({ name: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${hex(String(i))}`, sizeBytes: 2 * 1024 ** 3 })),
  ],
  createdAt: "2026-11-01T09:00:00Z",
};

/** Rows inserted, updated and deleted per table since the statistics were reset. */
async function rowsWritten(): Promise<{ table: string; ins: number; upd: number; del: number }[]> {
  // Each backend reports its counts when it goes idle, at most once a second.
  await new Promise((r) => setTimeout(r, 1_500));
  const { rows } = await getPool().query(
    `SELECT relname, n_tup_ins, n_tup_upd, n_tup_del FROM pg_stat_user_tables WHERE schemaname = 'public' ORDER BY relname`,
  );
  return rows.map((r) => ({ table: r.relname, ins: Number(r.n_tup_ins), upd: Number(r.n_tup_upd), del: Number(r.n_tup_del) }));
}

async function sweepAll(): Promise<number> {
  let swept = 0;
  for (let attempt = 0; attempt < 3 && swept < SIZE; attempt++) {
    await makeAllDue();
    await new Collector(testCollectorOptions("bench", { concurrency: 16 })).runOnce();
    const { rows } = await getPool().query(
      `SELECT count(*) FROM "Cluster" c JOIN "ClusterState" s ON s."clusterId" = c."id" WHERE c."lastContactStatus" = 'ok'`,
    );
    swept = Number(rows[0].count);
  }
  return swept;
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "fleetskew-bench-bundle-"));
  const kubeconfigFile = path.join(dir, "fleet.kubeconfig");
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      path.join(__dirname, "bundleSimulator.ts"),
      "--clusters",
      String(SIZE),
      "--speed",
      String(SPEED),
      "--kubeconfig",
      kubeconfigFile,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => d.toString().includes("kubeconfig") && resolve());
    child.on("exit", (code) => reject(new Error(`simulator exited with ${code}`)));
  });
  const db = await createTestDatabase();
  try {
    await migrate(db.url, { dir: migrationsDir });
    process.env.DATABASE_URL = db.url;
    process.env.FLEETSKEW_SECRET_KEY ??= Buffer.alloc(32, 7).toString("base64");
    await registerFleet(readFileSync(kubeconfigFile, "utf8"));
    let start = performance.now();
    const swept = await sweepAll();
    console.log(
      `${SIZE} simulated clusters (simulated time ${SPEED}× real time); first sweep of ${swept}: ${fmt((performance.now() - start) / 1000)} s`,
    );

    const tom = await testActor("bench-tech", "technician");
    const alice = await testActor("bench-approver", "approver");
    const bytes = new TextEncoder().encode(JSON.stringify(manifest, null, 2));
    const digest = createHash("sha256").update(bytes).digest("hex");
    await vetBundle({ digest, note: "bench bundle" }, alice);
    await uploadBundle(bytes, tom);
    const request = RolloutRequestSchema.parse({
      kind: "bundle",
      bundle: `sha256:${digest}`,
      startUpgrade: true,
      unpinAfter: true,
      selection: { query: "" },
      strategy: { canaries: 10, maxConcurrency: "20%", maxFailures: "2%" },
    });
    start = performance.now();
    const { answer } = await proposeRollout(request, tom);
    const id = (answer as { id: string }).id;
    console.log(`plan over ${SIZE} clusters (stored prechecks included) and save: ${fmt(performance.now() - start, 0)} ms`);
    await changeRollout(id, "approve", "", alice, (await rolloutView(id)).digest);
    await getPool().query("SELECT pg_stat_reset()");

    const rssStart = procStatus("self", "VmRSS");
    let rssPeak = rssStart;
    let ticks = 0;
    start = performance.now();
    let view = await rolloutView(id);
    while (view.status === "running") {
      await advanceRollouts();
      ticks++;
      rssPeak = Math.max(rssPeak, procStatus("self", "VmRSS"));
      view = await rolloutView(id);
      if (ticks % 10 === 0) console.log(`  tick ${ticks}: ${JSON.stringify(view.counts)}`);
    }
    const wallS = (performance.now() - start) / 1000;
    const rows = await rowsWritten();
    console.log(`rollout ${view.status} after ${ticks} ticks: ${fmt(wallS)} s wall time; clusters ${JSON.stringify(view.counts)}`);
    console.log(`console (runner) process RSS: ${fmt(rssStart, 0)} MiB at start, ${fmt(rssPeak, 0)} MiB at peak`);
    const written = rows.filter((r) => r.ins + r.upd + r.del > 0).sort((a, b) => b.ins + b.upd - (a.ins + a.upd));
    const total = written.reduce((n, r) => n + r.ins + r.upd + r.del, 0);
    console.log(`rows written during the rollout: ${total} (${fmt(total / SIZE)} per cluster)`);
    for (const r of written) console.log(`  ${r.table}: ${r.ins} inserted, ${r.upd} updated, ${r.del} deleted`);
  } finally {
    child.kill("SIGTERM");
    await closeDb();
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((error) => {
  console.error(error);
  process.exit(1);
});
