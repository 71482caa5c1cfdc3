/**
 * A hostile ACM hub against a real console (its own, e2e/console.ts): the hub answers every list
 * with another page that never ends, closes every watch as soon as it opens, and sends answers of
 * a megabyte a page. The console stays responsive (`/api/health` under 200 ms throughout), its
 * memory (every process of it) stays within a stated bound, and the hub shows why it is not followed.
 */
import { readFileSync, readdirSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { expect, test } from "@playwright/test";
import { json, startHostileServer, type HostileServer } from "../server/testing/hostile";
import { startConsole, type StartedConsole } from "./console";

test.describe.configure({ mode: "serial" });

/** How much the console's processes together may grow while the hub attacks, in MiB. */
const MEMORY_BOUND_MIB = 400;
let app: StartedConsole;
let hub: HostileServer;
const counts = { lists: 0, watches: 0 };
const page = Buffer.alloc(1024 * 1024, "x").toString();

function answer(url: URL, res: ServerResponse) {
  const plural = url.pathname.split("/").at(-1)!;
  if (url.searchParams.get("watch") === "true") {
    counts.watches++;
    return res.writeHead(200, { "content-type": "application/json" }).end();
  }
  if (plural === "multiclusterengines") return json(res, 200, { metadata: {}, items: [{ status: { currentVersion: "2.9.0" } }] });
  if (url.searchParams.get("limit") === "1") return json(res, 200, { metadata: { resourceVersion: "1" }, items: [] });
  counts.lists++;
  // Every page a megabyte, and another one always to come.
  const next = Number(url.searchParams.get("continue") ?? 0) + 1;
  json(res, 200, {
    metadata: { continue: String(next), resourceVersion: "1" },
    items: [{ metadata: { name: `c${next}` }, padding: page }],
  });
}

/** Resident memory of a process and every process it started, in MiB. */
function treeRssMiB(pid: number): number {
  let kib = 0;
  const visit = (p: number) => {
    try {
      kib += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, "utf8"))?.[1] ?? 0);
      for (const task of readdirSync(`/proc/${p}/task`))
        for (const child of readFileSync(`/proc/${p}/task/${task}/children`, "utf8").split(" ").filter(Boolean)) visit(Number(child));
    } catch {
      // a process that just ended
    }
  };
  visit(pid);
  return kib / 1024;
}

test.beforeAll(async () => {
  test.setTimeout(240_000);
  hub = await startHostileServer((req, res) => {
    const url = new URL(req.url!, "https://hub");
    if (req.method === "GET" && url.pathname.startsWith("/apis/")) return answer(url, res);
    json(res, 200, {});
  });
  app = await startConsole({ FLEETSKEW_HUB_RESYNC_SECONDS: "30" });
});

test.afterAll(async () => {
  await app?.stop();
  await hub?.close();
});

// Measured on the project's machine: 516 list pages of a megabyte in 30 s, the console's processes 721 → 966 MiB of RSS,
// /api/health slowest 109 ms (docs/security.md, "Memory, whatever they send").
test("a hub with endless lists and a watch storm costs the console bounded memory, and the console stays responsive", async () => {
  test.setTimeout(180_000);
  const headers = { origin: app.url, "content-type": "application/json" };
  const session = await fetch(`${app.url}/api/v1/session`, {
    method: "POST",
    headers,
    body: JSON.stringify({ username: "admin", password: app.adminPassword }),
  });
  expect(session.status).toBe(200);
  const cookie = session.headers.get("set-cookie")!.split(";")[0]!;
  const base = treeRssMiB(app.pid);
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, treeRssMiB(app.pid))), 100);
  const registered = await fetch(`${app.url}/api/v1/hubs`, {
    method: "POST",
    headers: { ...headers, cookie },
    body: JSON.stringify({
      name: "hostile",
      apiUrl: hub.url,
      ca: hub.ca,
      readerToken: "reader",
      proxyUrl: `${hub.url}/proxy`,
      proxyCa: hub.ca,
      proxyToken: "proxy",
      proxyImpersonatedUser: "system:serviceaccount:fleetskew:proxy",
    }),
  });
  expect(registered.status).toBe(201);
  // The attack runs while /api/health is asked twice a second for 30 s.
  const latencies: number[] = [];
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    const started = performance.now();
    expect((await fetch(`${app.url}/api/health`)).status).toBe(200);
    latencies.push(performance.now() - started);
    await new Promise((r) => setTimeout(r, 500));
  }
  clearInterval(sampler);
  const detail = await (await fetch(`${app.url}/api/v1/hubs/hostile`, { headers: { cookie } })).json();
  const slowest = Math.max(...latencies);
  console.log(
    `hostile hub: ${counts.lists} list pages, ${counts.watches} watches; console RSS ${Math.round(base)} → peak ${Math.round(peak)} MiB; ` +
      `/api/health slowest ${Math.round(slowest)} ms of ${latencies.length}`,
  );
  expect(detail.hub.lastSyncStatus).toBe("error");
  // The four lists a sync reads at once share one budget: whichever crosses it first names it.
  expect(detail.hub.lastSyncError).toMatch(/^the hub's (answers to one sync|\w+ list) go(es)? past 128 MiB, the most Fleetskew reads /);
  expect(peak - base).toBeLessThan(MEMORY_BOUND_MIB);
  expect(slowest).toBeLessThan(200);
});
