import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as alertsRoute } from "@/app/api/v1/alerts/route";
import { GET as detailRoute } from "@/app/api/v1/clusters/[name]/route";
import { POST as clusterPreviewRoute } from "@/app/api/v1/clusters/[name]/preview/route";
import { GET as readinessRoute } from "@/app/api/v1/clusters/[name]/readiness/route";
import { GET as clusterRolloutsRoute } from "@/app/api/v1/clusters/[name]/rollouts/route";
import { GET as timelineRoute } from "@/app/api/v1/clusters/[name]/timeline/route";
import { GET as listRoute } from "@/app/api/v1/clusters/route";
import { GET as csvRoute } from "@/app/api/v1/fleet/clusters.csv/route";
import { GET as fleetReadinessRoute } from "@/app/api/v1/fleet/readiness/route";
import { GET as summaryRoute } from "@/app/api/v1/fleet/summary/route";
import { GET as fleetTimelineRoute } from "@/app/api/v1/fleet/timeline/route";
import { POST as fleetPreviewRoute } from "@/app/api/v1/preview/route";
import { Collector } from "../collector/collector";
import type { Actor } from "../auth/actor";
import { CLUSTER_SET_LABEL } from "../domain/hubEligibility";
import type { SimulatorServer } from "../simulator/http";
import { generateFleet } from "../simulator/scenarios/generate";
import { startTestSimulator } from "../simulator/testing";
import { getDb } from "../store/db";
import { makeAllDue } from "../store/sweeps";
import { testActor } from "../testing/actors";
import { useMigratedDatabase } from "../testing/database";
import { registerSimulatedClusters, testCollectorOptions } from "../testing/fleet";
import { params, request, sessionCookie } from "../testing/routes";
import { invalidateFleetList } from "./fleet";
import type { ClusterList, FleetSummary, FleetTimeline } from "./contract";

/**
 * Two teams on the simulated fleet: the clusters split into two cluster sets, a technician over one
 * and a viewer over the other. Each sees exactly their set on every read surface, counted as the
 * admin counts that set, and a cluster of the other set answers exactly like a missing one.
 */
process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();
let sim: SimulatorServer;
let emea: string[];
let amer: string[];
const cookies: Record<"admin" | "tom" | "vic", string> = { admin: "", tom: "", vic: "" };
/** A cluster of the other team's set that has alerts: prod-east-422 is blocked by its own MCO. */
const OTHERS = "prod-east-422";

const cookieOf = async (actor: Actor) => sessionCookie(actor.user);

beforeAll(async () => {
  let fleet;
  ({ fleet, sim } = await startTestSimulator());
  // Generated clusters beside the reference ones, so that each team has several.
  for (const spec of generateFleet(6, 7).filter((s) => !fleet.get(s.name))) fleet.add({ ...spec, faults: undefined });
  await registerSimulatedClusters(sim, fleet.list());
  const names = fleet
    .list()
    .map((c) => c.name)
    .sort();
  amer = names.filter((n, i) => n === OTHERS || (i % 2 === 1 && n !== OTHERS)).sort();
  emea = names.filter((n) => !amer.includes(n));
  for (const [set, members] of [
    ["emea", emea],
    ["amer", amer],
  ] as const)
    for (const name of members) {
      const { labels } = await getDb().cluster.findUniqueOrThrow({ where: { name }, select: { labels: true } });
      await getDb().cluster.update({ where: { name }, data: { labels: { ...(labels as object), [CLUSTER_SET_LABEL]: set } } });
    }
  invalidateFleetList();
  await makeAllDue();
  await new Collector(testCollectorOptions("team-reach", { client: { timeoutMs: 5_000, retries: 0, retryDelayMs: 10 } })).runOnce();
  cookies.admin = await cookieOf(await testActor("ada", "admin"));
  cookies.tom = await cookieOf(await testActor("tom", "technician", [{ role: "technician", scope: "clusterSet=emea" }]));
  cookies.vic = await cookieOf(await testActor("vic", "viewer", [{ role: "viewer", scope: "clusterSet=amer" }]));
}, 120_000);
afterAll(() => sim.close());

type Who = keyof typeof cookies;
const get = (who: Who, path: string) => request(path, { cookie: cookies[who] });
const list = async (who: Who, query = "") => {
  const response = await listRoute(get(who, `/api/v1/clusters?limit=1000${query ? `&${query}` : ""}`));
  expect(response.status).toBe(200);
  return (await response.json()) as ClusterList;
};
const json = async <T>(response: Response, status = 200): Promise<T> => {
  expect(response.status).toBe(status);
  return (await response.json()) as T;
};
const tally = (values: string[]) => values.reduce<Record<string, number>>((t, v) => ({ ...t, [v]: (t[v] ?? 0) + 1 }), {});

describe("a team's reads stay within its grants", () => {
  it("the list, its counts, search and CSV hold exactly the team's set, counted as the admin counts that set", async () => {
    expect(emea.length).toBeGreaterThan(1);
    expect(amer.length).toBeGreaterThan(1);
    const mine = await list("tom");
    expect(mine.clusters.map((c) => c.name).sort()).toEqual(emea);
    expect(mine.total).toBe(emea.length);
    const adminsView = await list("admin", "clusterSet=emea");
    expect(adminsView.clusters.map((c) => c.name).sort()).toEqual(emea);
    expect((await list("admin")).total).toBe(emea.length + amer.length);

    const summary = await json<FleetSummary>(await summaryRoute(get("tom", "/api/v1/fleet/summary")));
    expect(summary.clusters).toBe(emea.length);
    expect(summary.bySkew).toEqual(tally(adminsView.clusters.map((c) => c.skewStatus)));
    expect(summary.byReadiness).toEqual(tally(adminsView.clusters.map((c) => c.readinessStatus)));
    const theirs = await json<FleetSummary>(await summaryRoute(get("vic", "/api/v1/fleet/summary")));
    expect(theirs.clusters).toBe(amer.length);

    // Search: a name of the other set is not found; a term both sets share finds only the team's.
    expect((await list("tom", `q=${OTHERS}`)).total).toBe(0);
    expect((await list("admin", `q=${OTHERS}`)).total).toBeGreaterThan(0);
    const shared = (await list("tom", "q=-")).clusters.map((c) => c.name);
    expect(shared.every((n) => emea.includes(n))).toBe(true);
    expect(shared.length).toBe((await list("admin", "clusterSet=emea&q=-")).total);

    const csv = await (await csvRoute(get("tom", "/api/v1/fleet/clusters.csv"))).text();
    const rows = csv.trim().split("\n").slice(1);
    expect(rows.length).toBe(emea.length);
    for (const name of amer) expect(csv).not.toContain(`${name},`);
  });

  it("the alert list holds the alerts of the team's clusters only, the admin's list of them exactly", async () => {
    type Alerts = { alerts: { alert: string; cluster: string | null }[] };
    const all = (await json<Alerts>(await alertsRoute(get("admin", "/api/v1/alerts")))).alerts;
    expect(all.some((a) => a.cluster === OTHERS)).toBe(true);
    const key = (a: Alerts["alerts"][number]) => `${a.alert} ${a.cluster}`;
    const toms = (await json<Alerts>(await alertsRoute(get("tom", "/api/v1/alerts")))).alerts;
    expect(toms.map(key)).toEqual(all.filter((a) => a.cluster === null || emea.includes(a.cluster)).map(key));
    const vics = (await json<Alerts>(await alertsRoute(get("vic", "/api/v1/alerts")))).alerts;
    expect(vics.map(key)).toEqual(all.filter((a) => a.cluster === null || amer.includes(a.cluster)).map(key));
    expect(vics.some((a) => a.cluster === OTHERS)).toBe(true);
  });

  it("a cluster of the other set answers every read under /clusters/{name} exactly like a missing one", async () => {
    const missing = "no-such-cluster";
    const same = async (call: (name: string) => Promise<Response>) => {
      const theirs = await call(OTHERS);
      const none = await call(missing);
      expect(theirs.status).toBe(404);
      expect(none.status).toBe(404);
      expect(theirs.headers.get("content-type")).toBe(none.headers.get("content-type"));
      expect((await theirs.text()).replaceAll(OTHERS, "NAME")).toBe((await none.text()).replaceAll(missing, "NAME"));
      // The team's own cluster and the admin's view of the other one are answered.
      expect((await call(emea[0]!)).status).not.toBe(404);
    };
    const path = (name: string, rest = "") => `/api/v1/clusters/${name}${rest}`;
    await same((name) => detailRoute(get("tom", path(name)), params({ name })));
    await same((name) => readinessRoute(get("tom", path(name, "/readiness")), params({ name })));
    await same((name) => timelineRoute(get("tom", path(name, "/timeline")), params({ name })));
    await same((name) => clusterRolloutsRoute(get("tom", path(name, "/rollouts")), params({ name })));
    const previewBody = { machineConfig: "kind: MachineConfig\n" };
    const theirs = await clusterPreviewRoute(
      request(path(OTHERS, "/preview"), { method: "POST", cookie: cookies.tom, body: previewBody }),
      params({ name: OTHERS }),
    );
    const none = await clusterPreviewRoute(
      request(path("no-such-cluster", "/preview"), { method: "POST", cookie: cookies.tom, body: previewBody }),
      params({ name: "no-such-cluster" }),
    );
    expect(theirs.status).toBe(404);
    expect((await theirs.text()).replaceAll(OTHERS, "NAME")).toBe((await none.text()).replaceAll("no-such-cluster", "NAME"));
    expect((await detailRoute(get("admin", path(OTHERS)), params({ name: OTHERS }))).status).toBe(200);
    expect((await detailRoute(get("vic", path(OTHERS)), params({ name: OTHERS }))).status).toBe(200);
  });

  it("a fleet preview refuses a cluster of the other set as unknown", async () => {
    const response = await fleetPreviewRoute(
      request("/api/v1/preview", { method: "POST", cookie: cookies.tom, body: { machineConfig: machineConfig(), clusters: [OTHERS] } }),
    );
    expect(response.status).toBe(404);
    expect(await response.text()).toContain(`no cluster named ${OTHERS}`);
  });

  it("the fleet timeline and readiness roll-up count the team's clusters only", async () => {
    const lastDay = async (who: Who) =>
      (await json<FleetTimeline>(await fleetTimelineRoute(get(who, "/api/v1/fleet/timeline")))).days.at(-1)!.counts;
    const [admins, toms, vics] = await Promise.all([lastDay("admin"), lastDay("tom"), lastDay("vic")]);
    const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
    expect(sum(toms)).toBeGreaterThan(0);
    expect(sum(toms)).toBeLessThanOrEqual(emea.length);
    expect(sum(vics)).toBeLessThanOrEqual(amer.length);
    // The two sets split the fleet, so their charts add up to the admin's.
    for (const status of new Set([...Object.keys(admins), ...Object.keys(toms), ...Object.keys(vics)]))
      expect((toms[status] ?? 0) + (vics[status] ?? 0), status).toBe(admins[status] ?? 0);

    type RollUp = { counts: Record<string, number> };
    const rollUp = async (who: Who) => (await json<RollUp>(await fleetReadinessRoute(get(who, "/api/v1/fleet/readiness")))).counts;
    expect(sum(await rollUp("tom"))).toBe(emea.length);
    expect(sum(await rollUp("vic"))).toBe(amer.length);
    expect(sum(await rollUp("admin"))).toBe(emea.length + amer.length);
  });
});

/** A MachineConfig that parses, for a fleet preview that must be refused before any cluster is read. */
function machineConfig(): string {
  return [
    "apiVersion: machineconfiguration.openshift.io/v1",
    "kind: MachineConfig",
    "metadata:",
    "  name: 50-worker-x",
    "  labels:",
    "    machineconfiguration.openshift.io/role: worker",
    "spec:",
    "  config:",
    "    ignition:",
    "      version: 3.5.0",
  ].join("\n");
}
