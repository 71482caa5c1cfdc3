import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClusterClient } from "../kube/client";
import { parseKubeconfig } from "../kube/credentials";
import { KINDS } from "../kube/kinds";
import { createPinnedImageSet, setBootImageSkewEnforcement, setDesiredUpdate } from "../kube/writers";
import { checkBootImageSkew } from "../domain/skew";
import type { Fleet } from "./cluster";
import type { SimulatorServer } from "./http";
import { kubeconfigFor } from "./kubeconfig";
import { parseQuantity, Reconciler } from "./reconciler";
import { startTestSimulator } from "./testing";

type Any = Record<string, any>;
let fleet: Fleet;
let sim: SimulatorServer;
let reconciler: Reconciler;
let t = Date.parse("2026-06-01T00:00:00Z");
const clock = { now: () => new Date(t) };
const advance = (seconds: number) => {
  t += seconds * 1000;
  reconciler.reconcileActive();
};
let client: (name: string) => ClusterClient;

beforeAll(async () => {
  ({ fleet, sim } = await startTestSimulator());
  reconciler = new Reconciler(fleet, clock, { pullSecondsPerImage: 60, defaultImageBytes: 1024 ** 3, upgradeSeconds: 3600 });
  const kc = parseKubeconfig(kubeconfigFor(fleet.list(), sim.url, sim.ca));
  client = (name) => new ClusterClient(kc.credentialsFor(name));
});
afterAll(() => sim.close());

const condition = (obj: Any, type: string): Any => (obj.status.conditions as Any[]).find((c) => c.type === type) as Any;

describe("skew enforcement, as the MCO does it", () => {
  it("mirrors an acknowledgement into status and lifts Upgradeable=False, then blocks again with the exact message", async () => {
    const c = client("prod-east-422");
    const before = (await c.get(KINDS.clusterOperator, "machine-config")) as Any;
    expect(condition(before, "Upgradeable").status).toBe("False");
    // ClusterVersion carries the CVO's verdict: the skew and the unacknowledged 4.22 admin gate.
    const cvBefore = (await c.get(KINDS.clusterVersion, "version")) as Any;
    expect(condition(cvBefore, "Upgradeable")).toMatchObject({ status: "False", reason: "MultipleReasons" });
    expect(condition(cvBefore, "Upgradeable").message).toMatch(
      /^Cluster should not be upgraded between minor or major versions for multiple reasons: AdminAckRequired,ClusterBootImageSkewError\n\* /,
    );
    expect(condition(cvBefore, "UpgradeableClusterOperators")).toMatchObject({ reason: "ClusterBootImageSkewError" });

    await setBootImageSkewEnforcement(c, { mode: "Manual", manual: { mode: "RHCOSVersion", rhcosVersion: "9.6.20250701-0" } });
    advance(1);
    const mc = (await c.get(KINDS.machineConfiguration, "cluster")) as Any;
    expect(mc.status.bootImageSkewEnforcementStatus).toEqual({
      mode: "Manual",
      manual: { mode: "RHCOSVersion", rhcosVersion: "9.6.20250701-0" },
    });
    expect(condition((await c.get(KINDS.clusterOperator, "machine-config")) as Any, "Upgradeable")).toMatchObject({
      status: "True",
      reason: "AsExpected",
    });
    // Only the admin gate is left: the CVO's Upgradeable says so alone, the operators' condition is gone.
    const cvAcked = (await c.get(KINDS.clusterVersion, "version")) as Any;
    expect(condition(cvAcked, "Upgradeable")).toMatchObject({ status: "False", reason: "AdminAckRequired" });
    expect(condition(cvAcked, "UpgradeableClusterOperators")).toBeUndefined();

    await setBootImageSkewEnforcement(c, { mode: "Manual", manual: { mode: "OCPVersion", ocpVersion: "4.12.0" } });
    advance(1);
    const expected = checkBootImageSkew({ ocpVersion: "4.12.0" }, { ocpVersion: "4.13.0", rhelVersion: "9.2" }, "4.22.3");
    const blocked = condition((await c.get(KINDS.clusterOperator, "machine-config")) as Any, "Upgradeable");
    expect(blocked).toMatchObject({ status: "False", reason: "ClusterBootImageSkewError" });
    expect(blocked.message).toBe(expected.outcome === "below-limit" ? expected.message : "");
    expect(blocked.message).toContain("OCP boot image version 4.12.0, which is below the minimum required version 4.13.0");
    expect(condition((await c.get(KINDS.clusterVersion, "version")) as Any, "UpgradeableClusterOperators").message).toBe(
      `Cluster operator machine-config should not be upgraded between minor or major versions: ${blocked.message}`,
    );
  });

  it("moves managed MachineSets to the stream image when boot images are managed for All", async () => {
    const c = client("prod-east");
    await c.mergePatch(KINDS.machineConfiguration, "cluster", {
      spec: {
        managedBootImages: { machineManagers: [{ resource: "machinesets", apiGroup: "machine.openshift.io", selection: { mode: "All" } }] },
      },
    });
    advance(1);
    const amis = ((await c.list(KINDS.machineSet, { namespace: "openshift-machine-api" })) as Any[]).map(
      (m) => m.spec.template.spec.providerSpec.value.ami.id,
    );
    expect(new Set(amis)).toEqual(new Set(["ami-0422676091bb78731"]));
    const mc = (await c.get(KINDS.machineConfiguration, "cluster")) as Any;
    expect(mc.status.managedBootImagesStatus.machineManagers[0].selection.mode).toBe("All");
    expect(condition(mc, "BootImageUpdateProgressing").message).toContain("Reconciled 4 of 4 MAPI MachineSets");
    expect(mc.status.bootImageSkewEnforcementStatus).toBeUndefined(); // 4.19 has no skew API
  });
});

describe("pinned images", () => {
  it("pre-loads on every node of the pool, and fails a node without the disk the MCO requires", async () => {
    const c = client("prod-east");
    const images = [1, 2, 3].map((i) => `quay.io/example/app${i}@sha256:${String(i).repeat(64)}`);
    await createPinnedImageSet(c, {
      name: "bundle-test-worker",
      poolLabels: { "machineconfiguration.openshift.io/role": "worker" },
      images,
    });
    advance(1);
    const workers = () => c.list(KINDS.machineConfigNode).then((l) => (l as Any[]).filter((m) => m.spec.pool.name === "worker"));
    const pool = (await c.get(KINDS.machineConfigPool, "worker")) as Any;
    expect(pool.spec.pinnedImageSets.map((p: Any) => p.name)).toContain("bundle-test-worker");
    const entry = (m: Any) => m.status.pinnedImageSets.find((e: Any) => e.name === "bundle-test-worker");
    for (const m of await workers()) {
      expect(entry(m)).toMatchObject({ desiredGeneration: 1 });
      expect(condition(m, "PinnedImageSetsProgressing")).toMatchObject({ status: "True", reason: "ImagePrefetch" });
    }
    advance(3 * 60 + 1);
    const nodes = new Map(((await c.list(KINDS.node)) as Any[]).map((n) => [n.metadata.name, n]));
    for (const m of await workers()) {
      const capacity = parseQuantity(nodes.get(m.metadata.name)!.status.allocatable["ephemeral-storage"])!;
      if (2 * 3 * 1024 ** 3 < capacity - 16 * 1024 ** 3) expect(entry(m)).toMatchObject({ currentGeneration: 1, desiredGeneration: 1 });
      else
        expect(entry(m)).toMatchObject({
          lastFailedGeneration: 1,
          lastFailedGenerationError: "storage available is less than minimum required",
        });
    }
    // Shrink one node's disk and pin a second set: that node fails with the MCO's message.
    const cluster = fleet.get("prod-east")!;
    const nodeInfo = cluster.kinds.find((k) => k.kind === "Node")!;
    const first = (await workers())[0]!;
    const node = cluster.store.get(nodeInfo, undefined, first.metadata.name) as Any;
    cluster.store.replace(
      nodeInfo,
      undefined,
      node.metadata.name,
      { ...node, status: { ...node.status, allocatable: { ...node.status.allocatable, "ephemeral-storage": "17Gi" } } } as never,
      "status",
    );
    // An image the node holds already needs no room (checkImagePayloadStorage skips it): that set completes.
    await createPinnedImageSet(c, {
      name: "bundle-test-worker-held",
      poolLabels: { "machineconfiguration.openshift.io/role": "worker" },
      images: images.slice(0, 1),
    });
    advance(1);
    const held = (await workers()).find((m) => m.metadata.name === first.metadata.name)!;
    expect(held.status.pinnedImageSets.find((e: Any) => e.name === "bundle-test-worker-held")).toMatchObject({ currentGeneration: 1 });
    await createPinnedImageSet(c, {
      name: "bundle-test-worker-2",
      poolLabels: { "machineconfiguration.openshift.io/role": "worker" },
      images: [`quay.io/example/app4@sha256:${"4".repeat(64)}`],
    });
    advance(1);
    const failed = (await workers()).find((m) => m.metadata.name === first.metadata.name)!;
    expect(failed.status.pinnedImageSets.find((e: Any) => e.name === "bundle-test-worker-2")).toMatchObject({
      lastFailedGeneration: 1,
      lastFailedGenerationError: "storage available is less than minimum required",
    });
    expect(condition(failed, "PinnedImageSetsDegraded")).toMatchObject({ status: "True", reason: "PrefetchFailed" });
    const sync = ((await c.get(KINDS.machineConfigPool, "worker")) as Any).status.poolSynchronizersStatus[0];
    expect(sync.poolSynchronizerType).toBe("PinnedImageSets");
    expect(sync.updatedMachineCount).toBeLessThan(sync.machineCount);
  });

  it("pulls nothing on a node that is not Ready (or under DiskPressure) until it is", async () => {
    const c = client("prod-east");
    const cluster = fleet.get("prod-east")!;
    const nodeInfo = cluster.kinds.find((k) => k.kind === "Node")!;
    const name = "ip-10-0-33-150.ec2.internal"; // the infra pool's node
    const setCondition = (type: string, status: string) => {
      const node = cluster.store.get(nodeInfo, undefined, name) as Any;
      const conditions = (node.status.conditions as Any[]).map((x) => (x.type === type ? { ...x, status } : x));
      cluster.store.replace(nodeInfo, undefined, name, { ...node, status: { ...node.status, conditions } } as never, "status");
    };
    const entry = async () =>
      ((await c.get(KINDS.machineConfigNode, name)) as Any).status.pinnedImageSets.find((e: Any) => e.name === "bundle-test-infra");
    // Written to the store directly (not through the API), so each step reconciles the cluster itself.
    const tick = (seconds: number) => {
      t += seconds * 1000;
      reconciler.reconcile(cluster);
    };
    setCondition("Ready", "False");
    await createPinnedImageSet(c, {
      name: "bundle-test-infra",
      poolLabels: { "machineconfiguration.openshift.io/role": "infra" },
      images: [`quay.io/example/infra@sha256:${"4".repeat(64)}`],
    });
    tick(1);
    tick(3600);
    // checkNodeReady's error, written as the set's (updateStatusError), retried by the work queue.
    expect(await entry()).toEqual({
      name: "bundle-test-infra",
      desiredGeneration: 1,
      lastFailedGeneration: 1,
      lastFailedGenerationError: `node ${name} is reporting NotReady=False`,
    });
    setCondition("Ready", "True");
    setCondition("DiskPressure", "True");
    tick(3600);
    expect((await entry()).currentGeneration).toBeUndefined();
    expect((await entry()).lastFailedGenerationError).toBe(`node ${name} is reporting OutOfDisk=True`);
    setCondition("DiskPressure", "Unknown");
    tick(120);
    expect((await entry()).lastFailedGenerationError).toBe(`node ${name} is reporting OutOfDisk=Unknown`);
    setCondition("DiskPressure", "False");
    // Node events do not enqueue a sync (handleNodeEvent only bootstraps): the next requeue, at most a minute away, pulls.
    tick(1);
    tick(61);
    tick(61);
    expect(await entry()).toMatchObject({ currentGeneration: 1, desiredGeneration: 1 });
  });
});

describe("upgrades", () => {
  const release = (v: string) => ({
    version: v,
    image: `quay.io/openshift-release-dev/ocp-release@sha256:${v.replace(/\D/g, "").padEnd(64, "0")}`,
  });

  it("refuses a minor update while Upgradeable=False, naming the reason", async () => {
    const c = client("prod-east-422"); // blocked by the first test
    await setDesiredUpdate(c, release("4.23.1"));
    advance(1);
    const cv = (await c.get(KINDS.clusterVersion, "version")) as Any;
    expect(cv.status.history[0].version).toBe("4.22.3");
    expect(condition(cv, "ReleaseAccepted")).toMatchObject({ status: "False", reason: "PreconditionChecks" });
    expect(condition(cv, "ReleaseAccepted").message).toContain(
      'Precondition "ClusterVersionUpgradeable" failed because of "MultipleReasons": Cluster should not be upgraded between minor or major versions for multiple reasons: AdminAckRequired,ClusterBootImageSkewError',
    );
  });

  it("runs a z-stream update through history to Completed", async () => {
    const c = client("prod-east-422");
    await setDesiredUpdate(c, release("4.22.4"));
    advance(1);
    let cv = (await c.get(KINDS.clusterVersion, "version")) as Any;
    expect(cv.status.history[0]).toMatchObject({ version: "4.22.4", state: "Partial", completionTime: null });
    expect(condition(cv, "Progressing").message).toMatch(/^Working towards 4\.22\.4: \d+ of 800 done/);
    advance(1800);
    expect(condition((await c.get(KINDS.clusterVersion, "version")) as Any, "Progressing").message).toMatch(/\(50% complete\)/);
    advance(1800);
    cv = (await c.get(KINDS.clusterVersion, "version")) as Any;
    expect(cv.status.history[0]).toMatchObject({ version: "4.22.4", state: "Completed" });
    expect(condition(cv, "Available").message).toBe("Done applying 4.22.4");
    expect(((await c.get(KINDS.configMap, "coreos-bootimages", "openshift-machine-config-operator")) as Any).data.releaseVersion).toBe(
      "4.22.4",
    );
  });

  it("serves the new release's kinds after crossing a minor", async () => {
    const c = client("legacy"); // 4.16 API: no MachineConfigNode
    const cluster = fleet.get("legacy")!;
    expect(cluster.kinds.some((k) => k.kind === "MachineConfigNode")).toBe(false);
    await c.mergePatch(KINDS.clusterVersion, "version", { status: {} }); // touch
    await setDesiredUpdate(c, release("4.19.12"));
    advance(1);
    advance(3600);
    expect(cluster.spec.ocpVersion).toBe("4.19.12");
    expect(cluster.kinds.some((k) => k.kind === "MachineConfigNode")).toBe(true);
  });
});
