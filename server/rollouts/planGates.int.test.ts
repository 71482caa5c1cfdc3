import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as createRoute } from "@/app/api/v1/rollouts/route";
import { hashPassword } from "../auth/password";
import { Collector } from "../collector/collector";
import { Fleet } from "../simulator/cluster";
import { startSimulator, type SimulatorServer } from "../simulator/http";
import { generateFleet } from "../simulator/scenarios/generate";
import { makeAllDue } from "../store/sweeps";
import { createUser } from "../store/users";
import { useMigratedDatabase } from "../testing/database";
import { registerSimulatedClusters, testCollectorOptions } from "../testing/fleet";
import { request, signIn } from "../testing/routes";

/**
 * An upgrade plan judged for its own target, through the plan route, on the demo fleet (`npm start`
 * with nothing configured) swept by the real collector over HTTPS: the CVO's one-minor rule,
 * Upgradeable=False and admin gates for a minor update, none of them for a z-stream one.
 */
process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();

let fleet: Fleet;
let sim: SimulatorServer;
let tom: string;

type Plan = { waves: { clusters: string[] }[]; excluded: { cluster: string; reason: string }[] };
async function plan(target: string): Promise<Plan> {
  const response = await createRoute(
    request("/api/v1/rollouts", {
      method: "POST",
      cookie: tom,
      body: { kind: "upgrade", target, selection: { query: "" }, strategy: {}, dryRun: true },
    }),
  );
  expect(response.status).toBe(200);
  return response.json();
}
const included = (p: Plan) => p.waves.flatMap((w) => w.clusters).sort();
const reasons = (p: Plan) => Object.fromEntries(p.excluded.map((e) => [e.cluster, e.reason]));

/** Sets a simulated cluster's ClusterVersion status as the CVO would report it. */
function setClusterVersionStatus(cluster: string, change: (status: Record<string, unknown>) => Record<string, unknown>) {
  const c = fleet.get(cluster)!;
  const info = c.kindFor({ apiVersion: "config.openshift.io/v1", kind: "ClusterVersion" })!;
  const cv = c.store.get(info, undefined, "version") as { status: Record<string, unknown> };
  c.store.replace(info, undefined, "version", { ...cv, status: change(cv.status) } as never, "status");
}

beforeAll(async () => {
  fleet = new Fleet();
  for (const spec of generateFleet(12, 1)) fleet.add(spec);
  sim = await startSimulator(fleet);
  // store-north-0006 (4.18.27) cannot take a minor update: an operator reports Upgradeable=False. The
  // update service offers it a 4.18 patch release besides 4.19.
  setClusterVersionStatus("store-north-0006", (status) => ({
    ...status,
    conditions: [
      ...(status.conditions as object[]),
      {
        type: "Upgradeable",
        status: "False",
        reason: "ClusterOperatorNotUpgradeable",
        message: "Cluster operator kube-apiserver should not be upgraded between minor versions: deprecated APIs in use",
        lastTransitionTime: new Date().toISOString(),
      },
    ],
    availableUpdates: [
      ...(status.availableUpdates as object[]),
      { version: "4.18.30", image: `quay.io/openshift-release-dev/ocp-release@sha256:${"c".repeat(64)}` },
    ],
  }));
  await registerSimulatedClusters(sim, fleet.list());
  await createUser({ username: "tom", role: "technician", passwordHash: await hashPassword("tom password for tests") }, { actor: null });
  tom = await signIn("tom", "tom password for tests");
  await makeAllDue();
  await new Collector(testCollectorOptions("test")).runOnce();
});
afterAll(() => sim.close());

describe("an upgrade plan judged for its target", () => {
  it("to 4.19.11: the two 4.19 clusters take it as a patch update; every cluster two minors or more below is refused as the CVO refuses it", async () => {
    const p = await plan("4.19.11");
    // Both show "Blocked – Admin gates" on the fleet page, for 4.20: a z-stream update needs no acknowledgement.
    expect(included(p)).toEqual(["lab-west-0001", "prod-east"]);
    const why = reasons(p);
    expect(why["plant-east-0008"]).toBe(
      "4.19.11 is 4 minor versions beyond 4.15.4, and OpenShift updates one minor version at a time: " +
        "the CVO refuses it (MultipleMinorVersionsUpdate). Update it through 4.16, 4.17, 4.18 first",
    );
    expect(why["stage-south-0002"]).toMatch(/^4\.19\.11 is 3 minor versions beyond 4\.16\.28, .*\(MultipleMinorVersionsUpdate\)/);
    expect(why["prod-south-0003"]).toMatch(/^4\.19\.11 is 2 minor versions beyond 4\.17\.30, .* through 4\.18 first$/);
    expect(why["plant-north-0007"]).toMatch(/^4\.19\.11 is 2 minor versions beyond 4\.17\.9, /);
    expect(why["store-north-0006"]).toBe(
      "not ready for 4.19.11: Upgradeable condition: ClusterVersion reports Upgradeable=False, reason ClusterOperatorNotUpgradeable: " +
        '"Cluster operator kube-apiserver should not be upgraded between minor versions: deprecated APIs in use". ' +
        "Upgradeable=False blocks minor updates, so the update to 4.19.11 cannot start until it is True again.",
    );
    expect(why["stage-north-0005"]).toBe("it already runs 4.19.23, not older than 4.19.11");
    expect(p.excluded).toHaveLength(10);
  });

  it("to a patch release of 4.18: Upgradeable=False does not hold back a z-stream update", async () => {
    const p = await plan("4.18.30");
    expect(included(p)).toEqual(["store-north-0006"]);
    // One minor below, prod-south-0003 (4.17.30) would take 4.18 as a minor update, which its 4.17 admin gate holds back.
    expect(reasons(p)["prod-south-0003"]).toMatch(/^not ready for 4\.18\.30: Admin gates: .* for 4\.17 .*not acknowledged/);
  });

  it("to 4.20: the admin gate of 4.19 holds back both 4.19 clusters, named with what it asks", async () => {
    const p = await plan("4.20.4");
    const why = reasons(p);
    expect(why["prod-east"]).toMatch(/^not ready for 4\.20\.4: Admin gates: 1 admin gate for 4\.19 is not acknowledged: ack-4\.19-/);
    expect(why["lab-west-0001"]).toMatch(/^not ready for 4\.20\.4: Admin gates: .* for 4\.19 .*not acknowledged/);
    expect(why["store-north-0006"]).toMatch(/^4\.20\.4 is 2 minor versions beyond 4\.18\.27/);
  });
});
