import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { normalizeSnapshot } from "../collector/normalize";
import { assessSkew, clusterSkew } from "../domain/clusterSkew";
import type { ClusterSnapshot } from "../domain/snapshot";
import { ClusterClient } from "../kube/client";
import { parseKubeconfig } from "../kube/credentials";
import { KINDS } from "../kube/kinds";
import { readClusterObjects } from "../kube/readers";
import { Fleet } from "./cluster";
import { startSimulator, type SimulatorServer } from "./http";
import { kubeconfigFor } from "./kubeconfig";
import { Reconciler } from "./reconciler";
import { generatedObjects, paramsFor, tokenFor, type ClusterParams } from "./scenarios/generate";
import { effectiveEnforcement } from "../domain/skewEnforcement";

/**
 * Reference §16.1 rule 2 end to end: the simulator serves metal3.io Provisioning, its MCO decides
 * enforcement by it, and Fleetskew, reading the same cluster over HTTP, predicts what that MCO decides.
 */
type Any = Record<string, any>;
const SEED = 1;
const all = Array.from({ length: 400 }, (_, i) => paramsFor(i, SEED)).filter((p) => !p.faults);
const bareMetal = all.filter((p) => p.platform === "BareMetal");
const aws = all.find((p) => p.platform === "AWS")!;
const on422 = (p: ClusterParams) => p.history[0]!.startsWith("4.22.");
/** Multi-node bare metal at 4.22 with no admin opinion and an install version below the limit, on the legacy path. */
const legacy422 = bareMetal.find(
  (p) => on422(p) && p.topology !== "SNO" && !p.enforcementSpec && p.provisioning === "os-download-url" && p.installVersion < "4.13",
)!;
const NO_CAPABILITY = "metal-no-capability";

let fleet: Fleet;
let sim: SimulatorServer;
let reconciler: Reconciler;
let client: (name: string) => ClusterClient;

beforeAll(async () => {
  fleet = new Fleet();
  const add = (p: ClusterParams, name = p.name) =>
    fleet.add({
      name,
      ocpVersion: p.history[0]!,
      token: tokenFor(name, SEED),
      readOnlyToken: tokenFor(`${name}-reader`, SEED),
      objects: () => generatedObjects(p),
    });
  for (const p of [...bareMetal, aws]) add(p);
  // The legacy cluster again, on a cluster without the baremetal capability: the kind is not served.
  add(legacy422, NO_CAPABILITY).kinds = fleet.get(legacy422.name)!.kinds.filter((k) => k.kind !== "Provisioning");
  sim = await startSimulator(fleet);
  reconciler = new Reconciler(fleet, { now: () => new Date("2026-06-01T00:00:00Z") });
  const kc = parseKubeconfig(kubeconfigFor(fleet.list(), sim.url, sim.ca));
  client = (name) => new ClusterClient(kc.credentialsFor(name));
});
afterAll(() => sim.close());

const snapshotOf = async (name: string) => normalizeSnapshot(await readClusterObjects(client(name)));
/** The snapshot as if the MCO had not written its status yet: Fleetskew's §16.1 prediction alone. */
const withoutStatus = (s: ClusterSnapshot): ClusterSnapshot => ({ ...s, enforcement: s.enforcement && { ...s.enforcement, status: null } });
const valueOf = (v: { ocpVersion: string | null; rhcosVersion: string | null } | null | undefined) =>
  v ? { ocpVersion: v.ocpVersion, rhcosVersion: v.rhcosVersion } : null;

describe("metal3.io Provisioning on simulated clusters (docs/openshift.md §16.1 rule 2)", () => {
  it("the generated fleet has multi-node bare metal on and off the legacy path at 4.22", () => {
    expect(legacy422).toBeDefined();
    const multiNode422 = bareMetal.filter((p) => on422(p) && p.topology !== "SNO" && !p.enforcementSpec);
    expect(new Set(multiNode422.map((p) => p.provisioning))).toEqual(new Set(["os-download-url", "no-os-download-url"]));
  });

  it("Fleetskew reads each Provisioning as generated, and predicts the mode and value the simulated MCO reports", async () => {
    let compared = 0;
    for (const p of bareMetal) {
      const s = await snapshotOf(p.name);
      expect(s.bareMetalProvisioning, p.name).toEqual({
        legacyPath: p.provisioning === "os-download-url",
        reason:
          p.provisioning === null
            ? "the cluster has no Provisioning provisioning-configuration"
            : p.provisioning === "os-download-url"
              ? "Provisioning provisioning-configuration has spec.provisioningOSDownloadURL set"
              : "Provisioning provisioning-configuration has no spec.provisioningOSDownloadURL",
      });
      const status = s.enforcement?.status;
      if (!on422(p)) continue;
      const predicted = effectiveEnforcement(withoutStatus(s), p.history[0]!);
      expect([predicted.mode, valueOf(predicted.value)], p.name).toEqual([
        status!.mode,
        valueOf(status!.mode === "Automatic" ? status!.automatic : status!.mode === "Manual" ? status!.manual : null),
      ]);
      if (p.topology !== "SNO" && !p.enforcementSpec) expect(status!.mode).toBe(p.provisioning === "os-download-url" ? "Manual" : "None");
      compared++;
    }
    expect(compared).toBeGreaterThan(3);
  });

  it("tells a cluster without the object (not legacy) from one that does not serve the kind (unknown, legacy assumed)", async () => {
    expect((await snapshotOf(aws.name)).bareMetalProvisioning).toEqual({
      legacyPath: false,
      reason: "the cluster has no Provisioning provisioning-configuration",
    });
    const s = await snapshotOf(NO_CAPABILITY);
    expect(s.bareMetalProvisioning).toEqual({
      legacyPath: null,
      reason: expect.stringMatching(/^the cluster does not serve metal3\.io\/v1alpha1 Provisioning \(.*not available on this cluster\)$/),
    });
    expect(effectiveEnforcement(withoutStatus(s), legacy422.history[0]!).mode).toBe("Manual");
  });

  it("the simulated MCO follows the Provisioning object, and Fleetskew agrees at every step", async () => {
    const c = client(legacy422.name);
    const current = legacy422.history[0]!;
    const upgradeable = async () =>
      (((await c.get(KINDS.clusterOperator, "machine-config")) as Any).status.conditions as Any[]).find((x) => x.type === "Upgradeable");
    const step = async (change: () => Promise<unknown>) => {
      await change();
      reconciler.reconcileActive();
      const s = await snapshotOf(legacy422.name);
      expect(effectiveEnforcement(withoutStatus(s), current).mode).toBe(s.enforcement!.status!.mode);
      return s;
    };

    // On the legacy path from the start: Manual with the install version, below the limit.
    let s = await snapshotOf(legacy422.name);
    expect(s.enforcement!.status).toMatchObject({ mode: "Manual", manual: { ocpVersion: legacy422.installVersion } });
    expect(assessSkew(s, current).block).toMatchObject({ reason: "ClusterBootImageSkewError", source: "cluster" });

    // The admin moves off the legacy path: the MCO stops enforcing.
    s = await step(() => c.mergePatch(KINDS.provisioning, "provisioning-configuration", { spec: { provisioningOSDownloadURL: null } }));
    expect(s.bareMetalProvisioning?.legacyPath).toBe(false);
    expect(s.enforcement!.status).toMatchObject({ mode: "None" });
    expect(await upgradeable()).toMatchObject({ status: "True", reason: "AsExpected" });
    expect(clusterSkew(s)).toMatchObject({ status: "ok", effectiveMode: "None" });

    // Back on it: Manual with the install version and the block, again.
    s = await step(() =>
      c.mergePatch(KINDS.provisioning, "provisioning-configuration", {
        spec: { provisioningOSDownloadURL: "http://172.22.0.3/images/rhcos.qcow2.gz" },
      }),
    );
    expect(s.enforcement!.status).toMatchObject({ mode: "Manual", manual: { ocpVersion: legacy422.installVersion } });
    expect(await upgradeable()).toMatchObject({ status: "False", reason: "ClusterBootImageSkewError" });
    expect(clusterSkew(s).status).toBe("blocked");

    // No Provisioning at all: not legacy either.
    s = await step(() => c.delete(KINDS.provisioning, "provisioning-configuration"));
    expect(s.bareMetalProvisioning).toEqual({ legacyPath: false, reason: "the cluster has no Provisioning provisioning-configuration" });
    expect(s.enforcement!.status).toMatchObject({ mode: "None" });
  });

  it("a cluster that does not serve the kind is on the legacy path to the simulated MCO, as to Fleetskew", async () => {
    const c = client(NO_CAPABILITY);
    await c.mergePatch(KINDS.clusterVersion, "version", { status: {} }); // touch, so the reconciler runs
    reconciler.reconcileActive();
    const s = await snapshotOf(NO_CAPABILITY);
    expect(s.enforcement!.status).toMatchObject({ mode: "Manual", manual: { ocpVersion: legacy422.installVersion } });
    expect(effectiveEnforcement(withoutStatus(s), legacy422.history[0]!).mode).toBe("Manual");
  });
});
