/**
 * The fleet view at scale, as people see it: N simulated clusters registered and swept by the real
 * console (`npm start`'s script, built, on the local Postgres), and Chromium driven by Playwright.
 * Prints every figure beside its target; a missed target is reported, not fatal (docs/benchmarks.md).
 *
 *   BENCH_VIEW_CLUSTERS=10000   the fleet size
 *   BENCH_VIEW_READERS=20       people reading the fleet list at once while the collector sweeps
 *   BENCH_VIEW_SCOPED=1         then the same people again, each a viewer with three scoped grants
 *                               (a site and a region each, e.g. `label=site=edge&label=region=n`),
 *                               so that the list's reach condition is measured; 0 skips that part
 *
 *   BENCH_VIEW_COLLECTOR=worker  sweep in a collector worker (`npm run collector`) beside a web
 *                                process that only serves (FLEETSKEW_WEB_SWEEPS=0), as the manifests
 *                                deploy it; `web` sweeps in `npm start`'s own background process (one
 *                                `npm start`, as a newcomer runs it). `npm run bench` runs both.
 * The collector sweeps at the default concurrency.
 * Needs `npm run build` (it starts the built console) and Chromium (/usr/bin/chromium or CHROMIUM_PATH).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "@playwright/test";
import pg from "pg";
import { freePort, runStart } from "../e2e/console";
import { SESSION_COOKIE, startSession } from "../server/auth/session";
import { closeDb } from "../server/store/db";
import { createUser } from "../server/store/users";
import { migrate } from "../server/store/migrate";
import { createTestDatabase, migrationsDir } from "../server/testing/postgres";
import { bytesDuring, fmt, percentile, registerFleet, startSimulator, type Simulator } from "./common";

const CLUSTERS = Number(process.env.BENCH_VIEW_CLUSTERS ?? 10_000);
const READERS = Number(process.env.BENCH_VIEW_READERS ?? 20);
const COLLECTOR: "worker" | "web" = process.env.BENCH_VIEW_COLLECTOR === "web" ? "web" : "worker";
const SCOPED = process.env.BENCH_VIEW_SCOPED !== "0";
const ROOT = path.resolve(__dirname, "..");
const KB = 1024;

type Row = { figure: string; result: string; target: string; met: boolean | null };
const rows: Row[] = [];
const report = (figure: string, result: string, target: string, met: boolean | null) => {
  rows.push({ figure, result, target, met });
  console.log(`  ${figure}: ${result} (target ${target}${met === null ? "" : met ? ": met" : ": MISSED"})`);
};

async function main() {
  if (!existsSync(path.join(ROOT, ".next/BUILD_ID"))) {
    console.log("building the console (npm run build)…");
    if (spawnSync("npm", ["run", "build"], { cwd: ROOT, stdio: "inherit" }).status !== 0) throw new Error("npm run build failed");
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), "fleetskew-bench-view-"));
  const db = await createTestDatabase();
  let sim: Simulator | undefined;
  let stopConsole: (() => void) | undefined;
  let consoleOutput = () => "";
  let worker: ChildProcess | undefined;
  try {
    await migrate(db.url, { dir: migrationsDir });
    process.env.DATABASE_URL = db.url;
    process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
    console.log(
      `fleet view, ${CLUSTERS.toLocaleString()} simulated clusters, ${READERS} readers, sweeping in ${COLLECTOR === "web" ? "npm start's background process" : "a collector worker"}`,
    );
    sim = await startSimulator(CLUSTERS, dir);
    const { names } = await registerFleet(sim.kubeconfig);

    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const password = `bench ${randomBytes(6).toString("hex")}`;
    // A long interval: after the first pass the fleet is quiet until the benchmark makes it due again.
    const shared = {
      DATABASE_URL: db.url,
      FLEETSKEW_SECRET_KEY: process.env.FLEETSKEW_SECRET_KEY,
      FLEETSKEW_DATA_DIR: dir,
      FLEETSKEW_SWEEP_INTERVAL_SECONDS: "3600",
      FLEETSKEW_CONNECT_TO: sim.connectTo,
    };
    const started = await runStart({
      PORT: String(port),
      HOST: "127.0.0.1",
      ...shared,
      FLEETSKEW_DEMO: "0",
      FLEETSKEW_ADMIN_PASSWORD: password,
      FLEETSKEW_WEB_SWEEPS: COLLECTOR === "web" ? "1" : "0",
    });
    stopConsole = () => started.child.kill("SIGTERM");
    consoleOutput = started.output;
    // After the first start, which creates the admin only while the database holds no account.
    const scopedCookies = SCOPED ? await scopedPeople(names) : [];
    await closeDb();
    if (COLLECTOR === "worker")
      worker = spawn(
        process.execPath,
        ["--max-old-space-size=768", "--max-semi-space-size=32", "--import", "tsx", path.join(ROOT, "scripts/collector.ts")],
        {
          cwd: ROOT,
          env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...shared, FLEETSKEW_MIGRATE: "0", NODE_ENV: "production" },
          stdio: ["ignore", "ignore", "inherit"],
        },
      );

    const sql = new pg.Client({ connectionString: db.url });
    // Dropping the database on the way out ends this connection: the failure that led there is the one to report.
    sql.on("error", () => undefined);
    await sql.connect();
    const swept = async () => Number((await sql.query(`SELECT count(*) FROM "ClusterState"`)).rows[0].count);
    const firstPass = performance.now();
    // About 3% of generated clusters never answer or answer garbage: wait for the rest.
    while ((await swept()) < CLUSTERS * 0.95) await new Promise((r) => setTimeout(r, 2_000));
    console.log(`  first pass: ${(await swept()).toLocaleString()} clusters read in ${fmt((performance.now() - firstPass) / 1000)} s`);

    // A busy machine can fail a sign-in (its database connection timing out): try a few times, then say why.
    let cookie = "";
    for (let attempt = 1; !cookie; attempt++) {
      const login = await fetch(`${url}/api/v1/session`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: url },
        body: JSON.stringify({ username: "admin", password }),
      });
      cookie = login.headers.get("set-cookie")?.split(";")[0] ?? "";
      if (!cookie && attempt >= 5) throw new Error(`the admin's sign-in answered ${login.status}: ${await login.text()}`);
      if (!cookie) await new Promise((r) => setTimeout(r, 3_000));
    }
    const get = async (p: string) => {
      const t = performance.now();
      const response = await fetch(`${url}${p}`, { headers: { cookie } });
      const body = await response.text();
      return { ms: performance.now() - t, bytes: Buffer.byteLength(body), status: response.status };
    };

    console.log("quiet fleet (no sweep due):");
    const window = await get("/api/v1/clusters");
    report("GET /api/v1/clusters body (one window)", `${fmt(window.bytes / KB)} KB`, "< 100 KB", window.bytes < 100 * KB);
    const html = await get("/fleet");
    report("/fleet HTML", `${fmt(html.bytes / KB)} KB in ${fmt(html.ms, 0)} ms`, "< 300 KB", html.bytes < 300 * KB);

    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
    });
    try {
      const context = await browser.newContext({ baseURL: url });
      const page = await context.newPage();
      await page.goto("/login");
      await page.getByLabel("Username").fill("admin");
      await page.getByLabel("Password").fill(password);
      const firstRow = page.getByRole("table", { name: "Clusters" }).locator("a[href^='/clusters/']").first();
      let signedInAt = 0;
      page.on("response", (r) => {
        if (r.url().endsWith("/api/v1/session") && r.request().method() === "POST") signedInAt = performance.now();
      });
      await page.getByRole("button", { name: "Sign in" }).click();
      await firstRow.waitFor({ state: "visible", timeout: 60_000 });
      const toFirstRow = performance.now() - signedInAt;
      report("sign-in done → first table row visible", `${fmt(toFirstRow, 0)} ms`, "< 1000 ms", toFirstRow < 1000);

      // A fresh browser (nothing cached) opening the fleet page.
      const cold = await browser.newContext({ baseURL: url });
      await cold.addCookies([{ name: cookie.split("=")[0]!, value: cookie.split("=").slice(1).join("="), url }]);
      const coldPage = await cold.newPage();
      const load = await bytesDuring(coldPage, async () => {
        await coldPage.goto("/fleet", { waitUntil: "networkidle" });
      });
      report("a page load, all responses", `${fmt(load.bytes / KB)} KB in ${load.responses} responses`, "< 500 KB", load.bytes < 500 * KB);
      // One refresh cycle of the open page (the table and counts poll every 15 s) while nothing changes.
      const refresh = await bytesDuring(coldPage, () => new Promise((r) => setTimeout(r, 16_000)));
      report(
        "a refresh when nothing changed",
        `${fmt(refresh.bytes / KB, 2)} KB in ${refresh.responses} responses`,
        "< 20 KB",
        refresh.bytes < 20 * KB,
      );

      // A search as someone types it, in the browser: from each keystroke until the table shows the
      // rows matching what is typed so far (the count the server gives for it, and a first row that matches).
      await page.evaluate(() => {
        const w = window as unknown as { lastKeyAt: number };
        document.addEventListener("keydown", () => (w.lastKeyAt = performance.now()), { capture: true });
      });
      const box = page.getByRole("searchbox").first();
      const typed: number[] = [];
      for (const word of ["store-east-01", "plant-west-00"]) {
        await box.fill("");
        await page.waitForFunction(() => !new URL(location.href).searchParams.get("q"));
        for (let i = 1; i <= word.length; i++) {
          const prefix = word.slice(0, i);
          const expected = await (
            await fetch(`${url}/api/v1/clusters?q=${encodeURIComponent(prefix)}&limit=1`, { headers: { cookie } })
          ).json();
          const total = (expected.total as number).toLocaleString("en-US");
          const name = (expected.clusters[0]?.name as string | undefined) ?? "";
          await box.press(word[i - 1]!);
          const ms = await page
            .waitForFunction(
              ({ name, total }) => {
                const status = [...document.querySelectorAll("[aria-live=polite]")].some((e) => e.textContent?.startsWith(`${total} of `));
                const first = document.querySelector("table a[href^='/clusters/'], [role=table] a[href^='/clusters/']")?.textContent ?? "";
                return status && first.includes(name) ? performance.now() - (window as unknown as { lastKeyAt: number }).lastKeyAt : null;
              },
              { name, total },
              { polling: "raf", timeout: 10_000 },
            )
            .catch(async (error) => {
              const seen = await page.evaluate(() => ({
                url: location.href,
                status: [...document.querySelectorAll("[aria-live=polite]")].map((e) => e.textContent),
                first: document.querySelector("table a[href^='/clusters/'], [role=table] a[href^='/clusters/']")?.textContent,
              }));
              console.error(`  "${prefix}": waited for ${total} matches, first ${name}; the page showed ${JSON.stringify(seen)}`);
              throw error;
            });
          typed.push((await ms.jsonValue()) as number);
        }
      }
      console.log(`  keystroke → rows, each in ms: ${typed.map((t) => fmt(t, 0)).join(", ")}`);
      report(
        `typing a search: keystroke → matching rows shown (p50 / p95 of ${typed.length} keystrokes)`,
        `${fmt(percentile(typed, 50), 0)} / ${fmt(percentile(typed, 95), 0)} ms`,
        "< 200 ms",
        percentile(typed, 95) < 200,
      );

      // The server's answer for each prefix, alone.
      // Generated clusters are named like store-east-0123.
      const searches: number[] = [];
      for (const q of ["s", "st", "sto", "store-e", "store-east-01", "4.19", "zzz-none"])
        for (let i = 0; i < 3; i++) searches.push((await get(`/api/v1/clusters?q=${encodeURIComponent(q)}`)).ms);
      report(
        "typing a search (server answer, p50 / p95)",
        `${fmt(percentile(searches, 50), 0)} / ${fmt(percentile(searches, 95), 0)} ms`,
        "< 200 ms",
        percentile(searches, 95) < 200,
      );
    } finally {
      await browser.close();
    }

    /** READERS people filtering, sorting and scrolling the list for a minute while the collector sweeps the whole fleet. */
    const readers = async (who: string, cookieOf: (i: number) => string) => {
      console.log(`${READERS} readers (${who}) while the collector sweeps the whole fleet:`);
      await sql.query(`UPDATE "SweepSchedule" SET "nextSweepAt" = now()`);
      const sweepStart = new Date();
      const views = ["", "?skew=blocked", "?sort=version&dir=desc", "?platform=AWS", "?readiness=fail&sort=name", "?q=edge-n"];
      const latencies: number[] = [];
      const until = performance.now() + 60_000;
      await Promise.all(
        Array.from({ length: READERS }, async (_, i) => {
          while (performance.now() < until) {
            const t = performance.now();
            const response = await fetch(`${url}/api/v1/clusters${views[i % views.length]}`, { headers: { cookie: cookieOf(i) } });
            await response.arrayBuffer();
            if (response.status === 200 || response.status === 304) latencies.push(performance.now() - t);
            // A person filtering, sorting and scrolling acts about once a second (an open tab alone polls every 15 s).
            await new Promise((resolve) => setTimeout(resolve, 500 + Math.random() * 1000));
          }
        }),
      );
      const sweptDuring = Number(
        (await sql.query(`SELECT count(*) FROM "SweepSchedule" WHERE "lastSweepAt" >= $1`, [sweepStart])).rows[0].count,
      );
      report(
        `fleet list, ${READERS} ${who} at once (p50 / p95, ${latencies.length} requests, ${sweptDuring.toLocaleString()} clusters swept meanwhile)`,
        `${fmt(percentile(latencies, 50), 0)} / ${fmt(percentile(latencies, 95), 0)} ms`,
        "p95 < 200 ms",
        percentile(latencies, 95) < 200,
      );
    };
    await readers("people", () => cookie);
    if (SCOPED) await readers("people with three scoped grants each", (i) => scopedCookies[i]!);
    await sql.end();
  } catch (error) {
    // What the console said last is usually why.
    console.error(`the console's last output:\n${consoleOutput().slice(-4_000)}`);
    throw error;
  } finally {
    stopConsole?.();
    // The worker finishes its sweeps in hand before the database it writes to is dropped.
    if (worker && worker.exitCode === null) {
      const exited = new Promise((r) => worker!.once("exit", r));
      worker.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000))]);
    }
    sim?.child.kill("SIGTERM");
    await closeDb().catch(() => undefined);
    await new Promise((r) => setTimeout(r, 2_000));
    await db.drop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
  console.log("\n| Figure | Result | Target |\n| --- | --- | --- |");
  for (const r of rows) console.log(`| ${r.figure} | ${r.result} | ${r.target}${r.met === null ? "" : r.met ? ": met" : ": missed"} |`);
}

/**
 * READERS viewers, each holding three grants over a site and region of the simulated fleet (its
 * clusters are named site-region-number), signed in straight through the store. Each person's
 * three pairs differ, so no two share a reach (nor a shared answer) unless the fleet has fewer pairs.
 */
async function scopedPeople(names: string[]): Promise<string[]> {
  const pairs = [...new Set(names.map((n) => n.split("-").slice(0, 2).join("-")).filter((p) => p.includes("-")))].sort();
  if (pairs.length === 0) throw new Error("the simulated fleet's names have no site-region part to scope by");
  const cookies: string[] = [];
  let reached = 0;
  for (let i = 0; i < READERS; i++) {
    const mine = [0, 1, 2].map((k) => pairs[(i * 3 + k) % pairs.length]!);
    reached += names.filter((n) => mine.some((p) => n.startsWith(`${p}-`))).length;
    const grants = mine.map((p) => {
      const [site, region] = p.split("-");
      return { role: "viewer" as const, scope: `label=site=${site}&label=region=${region}` };
    });
    const user = await createUser({ username: `reader-${i}`, role: "viewer", passwordHash: "scrypt$bench", grants }, { actor: "bench" });
    cookies.push(`${SESSION_COOKIE}=${(await startSession(user, { ip: "127.0.0.1", userAgent: null, ttlHours: 4 })).token}`);
  }
  console.log(
    `  ${READERS} scoped people over ${pairs.length} site-region pairs, each reaching ${fmt((reached / READERS / names.length) * 100)}% of the fleet on average`,
  );
  return cookies;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
