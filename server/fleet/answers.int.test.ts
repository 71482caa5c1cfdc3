import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as detailRoute } from "@/app/api/v1/clusters/[name]/route";
import { GET as readinessRoute } from "@/app/api/v1/clusters/[name]/readiness/route";
import { GET as timelineRoute } from "@/app/api/v1/clusters/[name]/timeline/route";
import { GET as listRoute } from "@/app/api/v1/clusters/route";
import { GET as csvRoute } from "@/app/api/v1/fleet/clusters.csv/route";
import { GET as fleetReadinessRoute } from "@/app/api/v1/fleet/readiness/route";
import { GET as summaryRoute } from "@/app/api/v1/fleet/summary/route";
import { GET as fleetTimelineRoute } from "@/app/api/v1/fleet/timeline/route";
import { GET as limitsRoute } from "@/app/api/v1/settings/skew-limits/route";
import { Collector } from "../collector/collector";
import { Fleet } from "../simulator/cluster";
import { startSimulator, type SimulatorServer } from "../simulator/http";
import { REGISTRY_LESS_CLUSTER, registryLessSpec } from "../simulator/scenarios/registryLess";
import { testFleetSpecs } from "../simulator/testing";
import { createUser } from "../store/users";
import { useMigratedDatabase } from "../testing/database";
import { registerSimulatedClusters, testCollectorOptions } from "../testing/fleet";
import { params, request, sessionCookie } from "../testing/routes";
import { fleetEndpoints } from "./contract";

/**
 * Every fleet and cluster read answers as its contract says, over clusters that were really swept
 * (the simulator's reference clusters and a registry-less one): apiRoute checks each answer against
 * its endpoint's schema in tests, so a drifting field is a 500 here.
 */
process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();

let sim: SimulatorServer;
let cookie: string;
const names: string[] = [];

beforeAll(async () => {
  const fleet = new Fleet();
  for (const spec of testFleetSpecs()) fleet.add(spec);
  fleet.add(registryLessSpec({ token: "edge-token", readOnlyToken: "edge-reader" }));
  sim = await startSimulator(fleet);
  await registerSimulatedClusters(sim, fleet.list());
  names.push(...fleet.list().map((c) => c.name));
  await new Collector(testCollectorOptions("answers")).runOnce();
  cookie = await sessionCookie(await createUser({ username: "reader", role: "viewer", passwordHash: "scrypt$x" }, { actor: null }));
}, 120_000);
afterAll(() => sim.close());

async function read(handler: (r: Request, c?: ReturnType<typeof params>) => Promise<Response>, path: string, name?: string) {
  const response = await handler(request(path, { cookie }), name ? params({ name }) : undefined);
  const text = await response.text();
  expect(response.status, `${path}: ${text.slice(0, 300)}`).toBe(200);
  return text;
}

describe("the fleet's answers match their contract", () => {
  it("for each swept cluster: its detail, readiness and timeline", async () => {
    expect(names).toContain(REGISTRY_LESS_CLUSTER);
    for (const name of names) {
      const detail = fleetEndpoints.detail.answer.parse(JSON.parse(await read(detailRoute, `/api/v1/clusters/${name}`, name)));
      expect(detail.snapshot, name).not.toBeNull();
      if (name === REGISTRY_LESS_CLUSTER) expect(detail.registryLess).not.toBeNull();
      await read(readinessRoute, `/api/v1/clusters/${name}/readiness`, name);
      await read(readinessRoute, `/api/v1/clusters/${name}/readiness?target=4.23`, name);
      const timeline = fleetEndpoints.timeline.answer.parse(
        JSON.parse(await read(timelineRoute, `/api/v1/clusters/${name}/timeline`, name)),
      );
      expect(timeline.version.length, name).toBeGreaterThan(0);
    }
  }, 120_000);

  it("for the fleet: a window, the summary, the roll-up, the timeline, the CSV and the skew limits", async () => {
    const page = fleetEndpoints.list.answer.parse(JSON.parse(await read(listRoute, "/api/v1/clusters?sort=name&limit=2")));
    expect([page.clusters.length, page.total, page.next]).toEqual([2, names.length, expect.any(String)]);
    await read(listRoute, `/api/v1/clusters?sort=name&after=${page.next}`);
    await read(summaryRoute, "/api/v1/fleet/summary");
    await read(fleetReadinessRoute, "/api/v1/fleet/readiness");
    await read(fleetTimelineRoute, "/api/v1/fleet/timeline");
    expect((await read(csvRoute, "/api/v1/fleet/clusters.csv")).trimEnd().split("\r\n")).toHaveLength(names.length + 1);
    await read(limitsRoute, "/api/v1/settings/skew-limits");
  });
});
