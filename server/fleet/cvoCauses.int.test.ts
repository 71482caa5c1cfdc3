import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as readinessRoute } from "@/app/api/v1/clusters/[name]/readiness/route";
import { GET as fleetReadinessRoute } from "@/app/api/v1/fleet/readiness/route";
import { Collector } from "../collector/collector";
import { parseConnectTo } from "../kube/connectTo";
import { Fleet } from "../simulator/cluster";
import { startSimulator, type SimulatorServer } from "../simulator/http";
import { CLOUD_CREDENTIAL_NOT_UPGRADEABLE, prodEast422Objects, prodEastBlockedAt } from "../simulator/scenarios/prodEast";
import { createUser } from "../store/users";
import { useMigratedDatabase } from "../testing/database";
import { registerSimulatedClusters, testCollectorOptions } from "../testing/fleet";
import { params, request, sessionCookie } from "../testing/routes";
import { fleetEndpoints } from "./contract";

/**
 * Upgradeable=False as the CVO of 4.22 and of 4.23 writes it, read through the simulator over HTTPS by
 * the real collector, and answered by the cluster's readiness and the fleet's roll-up: a cluster
 * blocked by boot-image skew alone is blocked by the skew (not by "the Upgradeable condition"), and a
 * second operator's refusal is a cause of its own beside it, in the operator's words.
 */
process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();

let sim: SimulatorServer;
let cookie: string;
const PREVIEW = "preview-alerts-422";
const CLUSTERS = [
  { name: "skew-422", version: "4.22.3", second: false },
  { name: "skew-and-cco-422", version: "4.22.3", second: true },
  { name: "skew-423", version: "4.23.2", second: false },
  { name: "skew-and-cco-423", version: "4.23.2", second: true },
] as const;

beforeAll(async () => {
  const fleet = new Fleet();
  for (const c of CLUSTERS)
    fleet.add({
      name: c.name,
      ocpVersion: c.version,
      token: `${c.name}-token`,
      readOnlyToken: `${c.name}-reader`,
      objects: () => prodEastBlockedAt(c.version, c.second),
    });
  // A TechPreview cluster: its CVO makes risks of the critical alert and the PodDisruptionBudget at its limit.
  fleet.add({
    name: PREVIEW,
    ocpVersion: "4.22.3",
    token: "preview-token",
    readOnlyToken: "preview-reader",
    featureSet: "TechPreviewNoUpgrade",
    monitoring: { alerts: "critical-and-pdb" },
    objects: prodEast422Objects,
  });
  sim = await startSimulator(fleet);
  await registerSimulatedClusters(sim, fleet.list());
  const connectTo = parseConnectTo(sim.connectTo);
  await new Collector(
    testCollectorOptions("cvo-causes", { client: { timeoutMs: 5_000, retries: 0, retryDelayMs: 10, connectTo } }),
  ).runOnce();
  cookie = await sessionCookie(await createUser({ username: "vera", role: "viewer", passwordHash: "scrypt$x" }, { actor: null }));
}, 120_000);
afterAll(() => sim.close());

async function readiness(name: string, target: string) {
  const response = await readinessRoute(request(`/api/v1/clusters/${name}/readiness?target=${target}`, { cookie }), params({ name }));
  expect(response.status).toBe(200);
  return fleetEndpoints.readiness.answer.parse(await response.json()).readiness;
}
const nextMinor = (version: string) => (version.startsWith("4.22") ? "4.23" : "4.24");
const blockingIds = (r: Awaited<ReturnType<typeof readiness>>) => {
  const failing = new Set(r.checks.filter((c) => c.status === "fail").map((c) => c.id));
  return r.checks
    .filter((c) => c.status === "fail" && !(c.id === "cv-upgradeable" && c.causedBy?.length && c.causedBy.every((id) => failing.has(id))))
    .map((c) => c.id);
};

describe("Upgradeable=False by the CVO of each release, through the simulator", () => {
  it.each(CLUSTERS.filter((c) => !c.second))("$name: skew alone is named as the cause", async ({ name, version }) => {
    const r = await readiness(name, nextMinor(version));
    const upgradeable = r.checks.find((c) => c.id === "cv-upgradeable")!;
    expect(upgradeable.status).toBe("fail");
    expect(upgradeable.causedBy).toEqual(["boot-image-skew"]);
    expect(blockingIds(r)).toEqual(["boot-image-skew"]);
    // The 4.23 CVO's reason for a single operator's risk, which no longer names the cause.
    if (version === "4.23.2") expect(upgradeable.detail).toContain("reason RiskNameNotCompatibleWithReasonProperty");
    else expect(upgradeable.detail).toContain("reason ClusterBootImageSkewError");
  });

  it.each(CLUSTERS.filter((c) => c.second))(
    "$name: skew and the cloud-credential operator are both named, in their words",
    async ({ name, version }) => {
      const r = await readiness(name, nextMinor(version));
      const upgradeable = r.checks.find((c) => c.id === "cv-upgradeable")!;
      expect(upgradeable.causedBy).toBeUndefined();
      expect(upgradeable.detail).toContain(CLOUD_CREDENTIAL_NOT_UPGRADEABLE);
      expect(upgradeable.detail).toContain("[see Boot-image skew]");
      expect(upgradeable.detail).toContain(version === "4.23.2" ? "reason MultipleReasons" : "reason ClusterOperatorsNotUpgradeable");
      expect(blockingIds(r)).toEqual(["cv-upgradeable", "boot-image-skew"]);
    },
  );

  it("the fleet's roll-up counts every cluster under the skew, and the two with a second operator under Upgradeable too", async () => {
    const response = await fleetReadinessRoute(request("/api/v1/fleet/readiness", { cookie }));
    expect(response.status).toBe(200);
    const roll = fleetEndpoints.readinessRollUp.answer.parse(await response.json());
    expect(roll.counts.fail).toBe(5);
    expect(roll.mostCommonBlocker).toMatchObject({ id: "boot-image-skew", clusters: 5 });
    expect(roll.blockers.map((b) => [b.id, b.clusters])).toEqual([
      ["boot-image-skew", 5],
      ["cv-upgradeable", 2],
      ["admin-acks", 1],
    ]);
  });

  it("a TechPreview cluster's firing alerts are risks of every update to its CVO, and shown once: by the alert checks", async () => {
    const r = await readiness(PREVIEW, "4.22.5");
    expect(r.checks.find((c) => c.id === "alerts-critical")!.status).toBe("warn");
    expect(r.checks.find((c) => c.id === "alerts-pdb")!.status).toBe("warn");
    const risks = r.checks.find((c) => c.id === "conditional-update-risks")!;
    // The z-stream update is held back only by the alerts: named, not warned about a second time.
    expect(risks.status).toBe("pass");
    expect(risks.detail).toContain(
      "2 firing alerts it counts as risks (KubeAPIErrorBudgetBurn, PodDisruptionBudgetAtLimit), which the alert checks show",
    );
    expect(risks.detail).toContain("Recommended=False (MultipleReasons)");
  });
});
