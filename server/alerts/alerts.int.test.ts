import { FLEET_WIDE } from "../domain/grants";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as metricsRoute } from "@/app/metrics/route";
import { Collector } from "../collector/collector";
import { metricsText } from "../fleet/metrics";
import type { Fleet } from "../simulator/cluster";
import type { SimulatorServer } from "../simulator/http";
import { generateFleet } from "../simulator/scenarios/generate";
import { startTestSimulator } from "../simulator/testing";
import { insertAcknowledgement } from "../store/acknowledgements";
import { findClusterSummary } from "../store/clusters";
import { getDb } from "../store/db";
import { makeAllDue } from "../store/sweeps";
import { createUser } from "../store/users";
import { useMigratedDatabase } from "../testing/database";
import { registerSimulatedClusters, testCollectorOptions } from "../testing/fleet";
import { request, sessionCookie } from "../testing/routes";
import { currentFleetAlerts } from "./alertList";
import { MAX_BODY_BYTES, readAlertmanager, TIMEOUT_MS } from "./alertmanager";
import { decideScrape } from "./scrapeAccess";

process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();
let fleet: Fleet;
let sim: SimulatorServer;

const sweep = async () => {
  await makeAllDue();
  // Client timeouts long enough for a busy machine; the timing-out cluster then takes 5 s a sweep.
  return new Collector(testCollectorOptions("alerts", { client: { timeoutMs: 5_000, retries: 0, retryDelayMs: 10 } })).runOnce();
};
const series = (text: string, name: string) => text.split("\n").filter((l) => l.startsWith(`${name}{`));

beforeAll(async () => {
  ({ fleet, sim } = await startTestSimulator());
  // Generated clusters beside the reference ones, healthy ones among them (no fault modes).
  for (const spec of generateFleet(6, 7).filter((s) => !fleet.get(s.name))) fleet.add({ ...spec, faults: undefined });
  await registerSimulatedClusters(sim, fleet.list());
  await sweep();
});
afterAll(() => sim.close());

describe("fleet alerts from the store", () => {
  it("prod-east-422 (blocked by its own MCO at 4.22.3): a skew block at the next minor and Upgradeable=False, labelled", async () => {
    const text = await metricsText();
    const blocked = series(text, "fleetskew_cluster_boot_image_skew_blocked");
    expect(blocked).toContainEqual(
      expect.stringMatching(
        /cluster="prod-east-422",hub="",cluster_set="",environment="",target_kind="next-minor",target="4\.23",stage="now",source="cluster",offered="false"\} 1$/,
      ),
    );
    expect(series(text, "fleetskew_cluster_not_upgradeable")).toContainEqual(
      expect.stringMatching(/cluster="prod-east-422".*reason="[A-Za-z]+".*\} 1$/),
    );
    const alerts = await currentFleetAlerts(FLEET_WIDE);
    const skew = alerts.find((a) => a.alert === "FleetskewNextMinorBlockedByBootImageSkew" && a.cluster === "prod-east-422")!;
    expect(skew).toMatchObject({ severity: "warning", labels: { cluster: "prod-east-422", target: "4.23", stage: "now" } });
    expect(skew.description).toContain("below the minimum required version 4.13.0");
    expect(skew.runbookUrl).toMatch(/docs\/runbooks\/FleetskewNextMinorBlockedByBootImageSkew\.md$/);
  });

  it("a cluster with nothing to act on costs no per-cluster series; totals are there for every signal", async () => {
    const text = await metricsText();
    const perCluster = text.split("\n").filter((l) => l.startsWith("fleetskew_cluster_") && l.includes("{cluster="));
    const named = new Set(perCluster.map((l) => /cluster="([^"]+)"/.exec(l)![1]));
    const rows = await getDb().clusterState.findMany({ select: { signals: true, cluster: { select: { name: true } } } });
    // A sweep that failed on a busy machine adds a failed-sweeps series; signals alone decide the rest.
    const failing = new Set(series(text, "fleetskew_cluster_failed_sweeps").map((l) => /cluster="([^"]+)"/.exec(l)![1]));
    for (const r of rows) if (!failing.has(r.cluster.name)) expect(named.has(r.cluster.name), r.cluster.name).toBe(r.signals !== null);
    expect(rows.some((r) => r.signals === null)).toBe(true);
    expect(text).toMatch(/^fleetskew_clusters_needing_action\{signal="failed_sweeps"\} \d+$/m);
    expect(text).toMatch(/^fleetskew_clusters_needing_action\{signal="boot_image_skew_next_minor"\} [1-9]$/m);
  });

  it("a cluster that fails three sweeps is unreachable; fixed, its series goes", async () => {
    fleet.setFaults("legacy", { timeout: true });
    for (let i = 0; i < 3; i++) await sweep();
    expect(series(await metricsText(), "fleetskew_cluster_failed_sweeps")).toContainEqual(
      expect.stringMatching(/cluster="legacy".*\} [3-9]$/),
    );
    expect((await currentFleetAlerts(FLEET_WIDE)).some((a) => a.alert === "FleetskewClusterUnreachable" && a.cluster === "legacy")).toBe(
      true,
    );
    fleet.setFaults("legacy", undefined);
    await sweep();
    expect(series(await metricsText(), "fleetskew_cluster_failed_sweeps")).toEqual([]);
    expect((await currentFleetAlerts(FLEET_WIDE)).some((a) => a.alert === "FleetskewClusterUnreachable")).toBe(false);
  });

  it("an acknowledgement waiting over a day raises FleetskewAcknowledgementWaiting", async () => {
    const user = await createUser({ username: "tech", role: "technician", passwordHash: "scrypt$unused" }, { actor: null });
    const cluster = (await findClusterSummary("prod-east"))!;
    const ack = await insertAcknowledgement(
      {
        clusterId: cluster.id,
        mode: "OCPVersion",
        ocpVersion: "4.19.10",
        rhcosVersion: null,
        evidence: "worker AMIs replaced",
        machineSets: [],
        requestedById: user.id,
        requestedBy: user.username,
        expiresAt: new Date(Date.now() + 7 * 86_400_000),
        baseline: null,
      },
      { actor: "tech", action: "acknowledgement.request", targetType: "cluster", targetId: "prod-east" },
    );
    expect((await currentFleetAlerts(FLEET_WIDE)).some((a) => a.alert === "FleetskewAcknowledgementWaiting")).toBe(false);
    await getDb().acknowledgement.update({ where: { id: ack.id }, data: { requestedAt: new Date(Date.now() - 26 * 3600_000) } });
    const waiting = (await currentFleetAlerts(FLEET_WIDE)).find((a) => a.alert === "FleetskewAcknowledgementWaiting")!;
    expect(waiting).toMatchObject({ cluster: "prod-east", severity: "info" });
    expect(series(await metricsText(), "fleetskew_cluster_acknowledgement_pending_seconds")).toContainEqual(
      expect.stringMatching(/cluster="prod-east".*\} 9\d{4}(\.\d+)?$/),
    );
  });
});

describe("/metrics access", () => {
  const token = "a-metrics-token-of-enough-length";
  const scrape = (headers: Record<string, string>) => request("/metrics", { headers, origin: null });

  it("with a token configured: the token is let in, a wrong one refused, no token falls back to a session", async () => {
    expect(await decideScrape(scrape({ authorization: `Bearer ${token}` }), token)).toBe("allowed");
    expect(await decideScrape(scrape({ authorization: `Bearer ${token}x` }), token)).toBe("forbidden");
    expect(await decideScrape(scrape({ authorization: "Bearer short" }), token)).toBe("forbidden");
    expect(await decideScrape(scrape({}), token)).toBe("unauthenticated");
  });

  it("without one: a token is refused, an admin's session reads it, another role's does not", async () => {
    expect((await metricsRoute(scrape({}))).status).toBe(401);
    expect((await metricsRoute(scrape({ authorization: `Bearer ${token}` }))).status).toBe(403);
    const viewer = await createUser({ username: "viewer", role: "viewer", passwordHash: "scrypt$unused" }, { actor: null });
    expect((await metricsRoute(scrape({ cookie: await sessionCookie(viewer) }))).status).toBe(403);
    const admin = await createUser({ username: "admin1", role: "admin", passwordHash: "scrypt$unused" }, { actor: null });
    const ok = await metricsRoute(scrape({ cookie: await sessionCookie(admin) }));
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain("fleetskew_cluster_boot_image_skew_blocked{");
  });
});

describe("reading an Alertmanager", () => {
  let server: http.Server;
  let base: string;
  const answers: Record<string, unknown> = {
    "/api/v2/alerts": [
      {
        fingerprint: "f1",
        labels: { alertname: "FleetskewNextMinorBlockedByBootImageSkew", severity: "warning", cluster: "prod-east-422" },
        annotations: { summary: "s" },
        startsAt: "2026-11-26T10:00:00Z",
        status: { state: "suppressed", silencedBy: ["s1"] },
      },
      { fingerprint: "f2", labels: { alertname: "KubePodCrashLooping" }, annotations: {}, startsAt: "", status: { state: "active" } },
    ],
    "/api/v2/silences": [
      {
        id: "s1",
        matchers: [{ name: "cluster", value: "prod-east-422", isRegex: false, isEqual: true }],
        createdBy: "ops",
        comment: "window",
        startsAt: "",
        endsAt: "2026-11-27T00:00:00Z",
        status: { state: "active" },
      },
      { id: "s0", matchers: [], createdBy: "ops", comment: "old", startsAt: "", endsAt: "", status: { state: "expired" } },
    ],
  };
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const path = new URL(req.url!, "http://x").pathname;
      if (path === "/hang/api/v2/alerts" || path === "/hang/api/v2/silences") return; // never answers
      if (path === "/huge/api/v2/alerts" || path === "/huge/api/v2/silences") {
        // A list that never ends, without a Content-Length: the limit is met while it arrives.
        res.writeHead(200, { "content-type": "application/json" });
        res.write("[");
        const chunk = `${JSON.stringify({ labels: { alertname: "FleetskewX" }, annotations: { d: "x".repeat(4000) } })},`;
        const more = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once("drain", more);
        };
        res.on("error", () => undefined);
        return more();
      }
      const body = answers[path];
      res.writeHead(body ? 200 : 404, { "content-type": "application/json" }).end(JSON.stringify(body ?? { error: "no" }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it("keeps Fleetskew's and OpenShift's alerts and the silences not expired", async () => {
    const state = await readAlertmanager(base);
    expect(state).toMatchObject({ status: "ok", truncated: false });
    if (state.status !== "ok") return;
    expect(state.alerts.map((a) => [a.labels.alertname, a.silencedBy])).toEqual([["FleetskewNextMinorBlockedByBootImageSkew", ["s1"]]]);
    expect(state.silences.map((s) => s.id)).toEqual(["s1"]);
  });

  it("says what is wrong, within the timeout: refused, not an Alertmanager, no answer", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    expect(await readAlertmanager(`http://127.0.0.1:${port}`)).toEqual({ status: "error", error: "connection refused" });
    expect(await readAlertmanager(`${base}/nothing`)).toEqual({ status: "error", error: "it answered HTTP 404" });
    const started = Date.now();
    expect(await readAlertmanager(`${base}/hang`)).toMatchObject({ status: "error", error: `no answer within ${TIMEOUT_MS / 1000} s` });
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 1000);
  });

  it("reads an answer up to its size limit, and shows viewers neither the URL nor an error's own text", async () => {
    const huge = await readAlertmanager(`${base}/huge`);
    expect(huge).toEqual({
      status: "error",
      error: `the answer is larger than ${MAX_BODY_BYTES / 1024 / 1024} MiB, the most Fleetskew reads from an Alertmanager`,
    });
    // A URL with credentials in it, answering over TLS where plain HTTP is spoken: the raw error names neither to viewers.
    const secret = `https://am-user:hunter2@127.0.0.1:${new URL(base).port}/private`;
    const failed = await readAlertmanager(secret);
    expect(failed).toEqual({ status: "error", error: "it could not be reached; the details are in the server log" });
    for (const state of [huge, failed, await readAlertmanager(base)]) {
      const text = JSON.stringify(state);
      expect(text).not.toContain("127.0.0.1");
      expect(text).not.toContain("hunter2");
      expect(text).not.toContain("/private");
    }
  });
});
