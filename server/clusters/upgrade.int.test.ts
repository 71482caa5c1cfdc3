import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Fleet } from "../simulator/cluster";
import { startSimulator, type SimulatorServer } from "../simulator/http";
import { prodEastObjects } from "../simulator/scenarios/prodEast";
import { useMigratedDatabase } from "../testing/database";
import { registerSimulatedClusters } from "../testing/fleet";
import { startClusterUpgrade, UpgradeRefused } from "./upgrade";

/** The start of an upgrade to an update ClusterVersion offers only conditionally, against a simulated cluster over HTTP. */
process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();

let fleet: Fleet;
let sim: SimulatorServer;
const who = { actor: "rollout 1", role: null, ip: null };
const image = `quay.io/openshift-release-dev/ocp-release@sha256:${"b".repeat(64)}`;

function offerConditionalUpdate(cluster: string, version: string, risks: string[]) {
  const c = fleet.get(cluster)!;
  const info = c.kindFor({ apiVersion: "config.openshift.io/v1", kind: "ClusterVersion" })!;
  const cv = c.store.get(info, undefined, "version") as { status: Record<string, unknown> };
  const conditionalUpdates = [
    {
      release: { version, image },
      risks: risks.map((name) => ({
        name,
        message: "a known issue",
        url: "https://access.redhat.com/solutions/1",
        matchingRules: [{ type: "Always" }],
      })),
      conditions: [{ type: "Recommended", status: "False", reason: risks[0], message: "", lastTransitionTime: new Date().toISOString() }],
    },
  ];
  c.store.replace(info, undefined, "version", { ...cv, status: { ...cv.status, conditionalUpdates } } as never, "status");
}

const desired = (cluster: string) => {
  const c = fleet.get(cluster)!;
  const info = c.kindFor({ apiVersion: "config.openshift.io/v1", kind: "ClusterVersion" })!;
  return (c.store.get(info, undefined, "version") as { spec?: { desiredUpdate?: { version?: string } } }).spec?.desiredUpdate;
};

beforeAll(async () => {
  fleet = new Fleet();
  for (const name of ["risky", "accepted"])
    fleet.add({ name, ocpVersion: "4.19.10", token: `${name}-token`, readOnlyToken: `${name}-reader`, objects: prodEastObjects });
  sim = await startSimulator(fleet);
  await registerSimulatedClusters(sim, fleet.list());
});
afterAll(async () => sim?.close());

describe("starting a conditional update", () => {
  it("is refused, naming the risks, while any of its risks is not accepted, and nothing is written", async () => {
    offerConditionalUpdate("risky", "4.19.13", ["AWSOldBootImages", "NewRisk"]);
    const before = desired("risky");
    const start = startClusterUpgrade("risky", { who, version: "4.19.13", acceptRisks: ["AWSOldBootImages"] });
    await expect(start).rejects.toThrow(UpgradeRefused);
    await expect(start).rejects.toThrow("4.19.13 is only a conditional update for it, with risks not accepted: NewRisk");
    expect(fleet.get("risky")!.writeRequests.get("patch ClusterVersion") ?? 0).toBe(0);
    expect(desired("risky")).toEqual(before);
  });

  it("is written when every risk is accepted", async () => {
    offerConditionalUpdate("accepted", "4.19.13", ["AWSOldBootImages"]);
    const started = await startClusterUpgrade("accepted", { who, version: "4.19.13", acceptRisks: ["AWSOldBootImages"] });
    expect(started).toEqual({ result: "patched", image });
    expect(desired("accepted")).toMatchObject({ version: "4.19.13" });
  });
});
