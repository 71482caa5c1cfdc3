import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { normalizeSnapshot } from "../collector/normalize";
import { Fleet } from "../simulator/cluster";
import { startSimulator, type SimulatorServer } from "../simulator/http";
import { kubeconfigFor } from "../simulator/kubeconfig";
import { prodEast422Objects } from "../simulator/scenarios/prodEast";
import { testFleetSpecs } from "../simulator/testing";
import { ClusterClient } from "./client";
import { testConnection } from "./connection";
import { parseKubeconfig, type ClusterCredentials } from "./credentials";
import { readClusterObjects, readFeatureGate } from "./readers";

/**
 * FeatureGate/cluster through the real client against the simulator over HTTPS: a Default cluster,
 * a TechPreviewNoUpgrade one, and a token that may not read it (docs/rbac.md).
 */
let sim: SimulatorServer;
let creds: (name: string) => ClusterCredentials;

beforeAll(async () => {
  const fleet = new Fleet();
  for (const spec of testFleetSpecs()) fleet.add(spec);
  fleet.add({
    name: "preview-422",
    ocpVersion: "4.22.3",
    token: "preview-token",
    readOnlyToken: "preview-reader",
    featureSet: "TechPreviewNoUpgrade",
    objects: prodEast422Objects,
  });
  fleet.add({
    name: "no-featuregates",
    ocpVersion: "4.22.3",
    token: "nofg-token",
    readOnlyToken: "nofg-reader",
    forbidden: [{ verb: "get", resource: "featuregates", group: "config.openshift.io" }],
    objects: prodEast422Objects,
  });
  sim = await startSimulator(fleet);
  const kubeconfig = parseKubeconfig(kubeconfigFor(fleet.list(), sim.url, sim.ca));
  creds = (name) => kubeconfig.credentialsFor(name);
});
afterAll(() => sim.close());

const client = (name: string) => new ClusterClient(creds(name), { timeoutMs: 5_000, retries: 0, retryDelayMs: 0 });

describe("readFeatureGate", () => {
  it("a Default cluster: no spec.featureSet, and the gates of its version", async () => {
    const r = await readFeatureGate(client("prod-east-422"));
    expect(r.status).toBe("ok");
    if (r.status !== "ok") return;
    expect(r.value.spec?.featureSet).toBeUndefined();
    expect(r.value.status?.featureGates?.[0]).toMatchObject({
      version: "4.22.3",
      disabled: [{ name: "IrreconcilableMachineConfig" }, { name: "OSStreams" }],
    });
  });

  it("the snapshot keeps the feature set and the gates enabled at the cluster's version", async () => {
    const tp = normalizeSnapshot(await readClusterObjects(client("preview-422")));
    expect(tp.featureGate).toEqual({
      featureSet: "TechPreviewNoUpgrade",
      version: "4.22.3",
      enabled: ["BootImageSkewEnforcement", "IrreconcilableMachineConfig", "OSStreams"],
    });
    const dflt = normalizeSnapshot(await readClusterObjects(client("prod-east-422")));
    expect(dflt.featureGate).toMatchObject({ featureSet: "Default", enabled: ["BootImageSkewEnforcement"] });
    expect(dflt.problems.filter((p) => p.part === "FeatureGate")).toEqual([]);
  });

  it("a token that may not read it: the connection test names the grant, the snapshot a problem and no facts", async () => {
    const report = await testConnection(creds("no-featuregates"));
    expect(report.forbidden).toEqual([expect.objectContaining({ verb: "get", resource: "featuregates", group: "config.openshift.io" })]);
    const s = normalizeSnapshot(await readClusterObjects(client("no-featuregates")));
    expect(s.featureGate).toBeNull();
    expect(s.problems).toContainEqual(expect.objectContaining({ part: "FeatureGate", kind: "error" }));
  });
});
