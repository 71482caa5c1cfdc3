import { actorFor } from "../server/auth/actor";
/**
 * The rollout page at 10,000 clusters, as people see it: a rollout over 10,000 clusters part-way
 * through (some succeeded, some running, a few failed with the MCO's long reasons, the rest
 * pending), served by the built console (`npm start`'s script, on the local Postgres) and opened in
 * Chromium. Targets: the first cluster row visible within 1 s of navigating, under 500 KB per load.
 * A missed target is reported, not fatal (docs/benchmarks.md).
 *
 *   node --import tsx bench/rolloutPage.ts        (BENCH_ROLLOUT_PAGE_CLUSTERS=10000)
 * Needs `npm run build` (it starts the built console) and Chromium (/usr/bin/chromium or CHROMIUM_PATH).
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "@playwright/test";
import { freePort, runStart } from "../e2e/console";
import { sealCredentials } from "../server/clusters/registration";
import { RolloutRequestSchema } from "../server/domain/rollouts/request";
import { planRollout, saveRollout } from "../server/rollouts/plan";
import { closeDb, getPool } from "../server/store/db";
import { migrate } from "../server/store/migrate";
import { hashPassword } from "../server/auth/password";
import { createUser } from "../server/store/users";
import { seedFleetRows } from "../server/testing/fleetRows";
import { createTestDatabase, migrationsDir } from "../server/testing/postgres";
import { bytesDuring, fmt, percentile } from "./common";

const SIZE = Number(process.env.BENCH_ROLLOUT_PAGE_CLUSTERS ?? 10_000);
/** Clusters per wave, of each site's 250: "5%" makes 801 waves, "250" makes 41. */
const WAVE = /^\d+$/.test(process.env.BENCH_ROLLOUT_PAGE_WAVE ?? "")
  ? Number(process.env.BENCH_ROLLOUT_PAGE_WAVE)
  : (process.env.BENCH_ROLLOUT_PAGE_WAVE ?? "5%");
const ROOT = path.resolve(__dirname, "..");
const KB = 1024;
const PASSWORD = `bench ${randomBytes(6).toString("hex")}`;
const MCO_REASON =
  'pre-load failed on node ip-10-0-77-201.ec2.internal of pool worker: not enough disk; the MCO reports "storage available is less than minimum required" ' +
  "(MachineConfigNode ip-10-0-77-201.ec2.internal, PinnedImageSetsDegraded=True). The node needs up to 28.0 GiB of allocatable ephemeral storage for these images " +
  "(twice their size plus 16 GiB; images already on the node and layers shared between images count once) and reports 20.0 GiB. Grow the node's disk or use a smaller bundle.";

const report = (figure: string, result: string, target: string | null, met: boolean | null) =>
  console.log(`  ${figure}: ${result}${target ? ` (target ${target}${met === null ? "" : met ? ": met" : ": MISSED"})` : ""}`);

/** A rollout over every seeded cluster, saved, approved, part-way through and paused (nothing moves while it is measured). */
async function seedRollout(): Promise<{ id: string; number: number }> {
  await seedFleetRows(
    Array.from({ length: SIZE }, (_, i) => ({
      name: `store-${String(i).padStart(5, "0")}`,
      labels: { site: `s-${i % 40}` },
      platform: "AWS",
      version: "4.19.10",
      readinessStatus: "pass",
    })),
  );
  // Credentials sealed as registration seals them (the console refuses to start on anything else); the clusters are never reached.
  const names = Array.from({ length: SIZE }, (_, i) => `store-${String(i).padStart(5, "0")}`);
  const sealed = await Promise.all(
    names.map((name) => sealCredentials(name, { server: `https://${name}.invalid:6443`, token: "bench", insecureSkipTlsVerify: false })),
  );
  await getPool().query(
    `UPDATE "Cluster" c SET "encryptedCredentials" = x.sealed FROM unnest($1::text[], $2::bytea[]) AS x(name, sealed) WHERE c."name" = x.name`,
    [names, sealed],
  );
  await getPool().query(
    `UPDATE "ClusterState" SET snapshot = jsonb_build_object('version', jsonb_build_object('availableUpdates', '["4.19.11"]'::jsonb))`,
  );
  const request = RolloutRequestSchema.parse({
    kind: "upgrade",
    target: "4.19.11",
    selection: { query: "" },
    strategy: { canaries: 10, maxConcurrency: WAVE, groupBy: "site", maxFailures: "2%" },
  });
  // The person who planned it, and who then reads its page.
  const user = await createUser(
    { username: "bench-tech", role: "technician", passwordHash: await hashPassword(PASSWORD) },
    { actor: null },
  );
  const actor = actorFor(user, "127.0.0.1");
  const plan = await planRollout(request);
  console.log(`  ${plan.waves.length} waves (groupBy site, 40 sites, maxConcurrency ${WAVE} of each site's clusters)`);
  const saved = await saveRollout(request, plan, actor);
  await getPool().query(
    `UPDATE "Rollout" SET "status" = 'paused', "statusReason" = 'paused by bench-approver', "approvedBy" = 'bench-approver', "approvedAt" = now() WHERE "id" = $1`,
    [saved.id],
  );
  // The first waves done, the next running, a few failed with the MCO's words: rows as long as real ones.
  await getPool().query(
    `WITH ordered AS (SELECT "clusterName", row_number() OVER (ORDER BY "wave", "clusterName") AS n FROM "RolloutCluster" WHERE "rolloutId" = $1)
     UPDATE "RolloutCluster" rc SET
        "state" = CASE WHEN o.n <= $2 * 0.3 THEN CASE WHEN o.n % 97 = 0 THEN 'failed' ELSE 'succeeded' END
                       WHEN o.n <= $2 * 0.35 THEN 'running' ELSE 'pending' END,
        "reason" = CASE WHEN o.n <= $2 * 0.3 AND o.n % 97 = 0 THEN $3
                        WHEN o.n > $2 * 0.3 AND o.n <= $2 * 0.35 THEN 'pre-loading: 2 of 3 nodes have the images' END,
        "startedAt" = CASE WHEN o.n <= $2 * 0.35 THEN now() - interval '2 hours' END,
        "writtenAt" = CASE WHEN o.n <= $2 * 0.35 THEN now() - interval '2 hours' END,
        "finishedAt" = CASE WHEN o.n <= $2 * 0.3 THEN now() - interval '1 hour' END
       FROM ordered o WHERE rc."rolloutId" = $1 AND rc."clusterName" = o."clusterName"`,
    [saved.id, SIZE, MCO_REASON],
  );
  await getPool().query("ANALYZE");
  return { id: saved.id, number: saved.number };
}

async function main() {
  if (!existsSync(path.join(ROOT, ".next/BUILD_ID"))) {
    console.log("building the console (npm run build)…");
    if (spawnSync("npm", ["run", "build"], { cwd: ROOT, stdio: "inherit" }).status !== 0) throw new Error("npm run build failed");
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), "fleetskew-bench-rollout-page-"));
  const db = await createTestDatabase();
  let stopConsole: (() => void) | undefined;
  try {
    await migrate(db.url, { dir: migrationsDir });
    process.env.DATABASE_URL = db.url;
    process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
    console.log(`rollout page, a rollout over ${SIZE.toLocaleString()} clusters`);
    const rollout = await seedRollout();
    await closeDb();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const started = await runStart({
      PORT: String(port),
      HOST: "127.0.0.1",
      DATABASE_URL: db.url,
      FLEETSKEW_SECRET_KEY: process.env.FLEETSKEW_SECRET_KEY,
      FLEETSKEW_DATA_DIR: dir,
      FLEETSKEW_DEMO: "0",
      // The seeded clusters have no API to sweep.
      FLEETSKEW_WEB_SWEEPS: "0",
      FLEETSKEW_SWEEP_INTERVAL_SECONDS: "3600",
    });
    stopConsole = () => started.child.kill("SIGTERM");

    const login = await fetch(`${url}/api/v1/session`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: url },
      body: JSON.stringify({ username: "bench-tech", password: PASSWORD }),
    });
    if (login.status !== 200) throw new Error(`signing in: ${login.status} ${await login.text()}`);
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    const get = async (p: string) => {
      const t = performance.now();
      const response = await fetch(`${url}${p}`, { headers: { cookie } });
      const body = await response.text();
      return { ms: performance.now() - t, bytes: Buffer.byteLength(body), status: response.status, body };
    };
    const times = async (p: string) => {
      const ms: number[] = [];
      let last = await get(p);
      for (let i = 0; i < 10; i++) ms.push((last = await get(p)).ms);
      return { ...last, p50: percentile(ms, 50), p95: percentile(ms, 95) };
    };
    const html = await times(`/rollouts/${rollout.number}`);
    report(
      "GET /rollouts/{n} HTML, the first 100 clusters in it (p50 / p95)",
      `${fmt(html.bytes / KB)} KB in ${fmt(html.p50, 0)} / ${fmt(html.p95, 0)} ms (status ${html.status}, first row in it: ${html.body.includes("store-")})`,
      null,
      null,
    );
    const api = await times(`/api/v1/rollouts/${rollout.id}/clusters?limit=100`);
    report(
      "GET /api/v1/rollouts/{id}/clusters?limit=100 (p50 / p95)",
      `${fmt(api.bytes / KB)} KB in ${fmt(api.p50, 0)} / ${fmt(api.p95, 0)} ms`,
      null,
      null,
    );
    const deep = await times(`/rollouts/${rollout.number}?state=pending&after=${encodeURIComponent("40:store-09000")}`);
    report(
      "a later page, pending clusters (p50 / p95)",
      `${fmt(deep.bytes / KB)} KB in ${fmt(deep.p50, 0)} / ${fmt(deep.p95, 0)} ms`,
      null,
      null,
    );
    const view = await times(`/api/v1/rollouts/${rollout.id}`);
    report(
      "GET /api/v1/rollouts/{id}, the waves' picture (p50 / p95)",
      `${fmt(view.bytes / KB)} KB in ${fmt(view.p50, 0)} / ${fmt(view.p95, 0)} ms`,
      null,
      null,
    );

    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
    });
    try {
      const firstRows: number[] = [];
      const loads: number[] = [];
      for (let i = 0; i < 3; i++) {
        // A fresh browser each time (nothing cached) opening the rollout page.
        const context = await browser.newContext({ baseURL: url });
        await context.addCookies([{ name: cookie.split("=")[0]!, value: cookie.split("=").slice(1).join("="), url }]);
        const page = await context.newPage();
        const firstRow = page.getByRole("table", { name: "Clusters of the rollout" }).locator("a[href^='/clusters/']").first();
        const load = await bytesDuring(page, async () => {
          const t = performance.now();
          await page.goto(`/rollouts/${rollout.number}`, { waitUntil: "commit" });
          await firstRow.waitFor({ state: "visible", timeout: 60_000 });
          firstRows.push(performance.now() - t);
          await page.waitForLoadState("networkidle");
        });
        loads.push(load.bytes);
        await context.close();
      }
      const first = percentile(firstRows, 50);
      report("navigate → first cluster row visible (median of 3 cold loads)", `${fmt(first, 0)} ms`, "< 1000 ms", first < 1000);
      const bytes = Math.max(...loads);
      report("a cold page load, all responses (largest of 3)", `${fmt(bytes / KB)} KB`, "< 500 KB", bytes < 500 * KB);
    } finally {
      await browser.close();
    }
  } finally {
    stopConsole?.();
    await closeDb();
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((error) => {
  console.error(error);
  process.exit(1);
});
