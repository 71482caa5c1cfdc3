import { describe, expect, it } from "vitest";
import { effectiveCrioRuntime, poolStreamsAtRender, runcOnRhel10Note, runcOnRhel10Refusal } from "../domain/disruption/osStreams";
import { machineConfigDoc, rendered } from "../domain/disruption/testing";
import { CapturedCluster } from "../kube/captured";
import type { DumpObject } from "../kube/dumps";
import { audienceOf, previewFrom, readProposedMachineConfig } from "./clusterPreview";

/*
 * The render controller's refusal of RHEL 10 pools that still use runc (MCO release-4.23 d20efd9b9bdb,
 * render_controller.go getOSImageStreamForPool and validateNoRuncOnRHEL10FromOSImageStream, helpers.go
 * GetEffectiveOSImageStreamName, IsCustomPool and DetectRuncInMachineConfig, osimagestream helpers.go
 * GetOSImageStreamSetByName; docs/openshift.md §25.1), on the pool's stream as the MCO resolves it.
 */
const ROLE = "machineconfiguration.openshift.io/role";
const RUNC = '[crio.runtime]\ndefault_runtime = "runc"\n';
const CRUN = '[crio.runtime]\ndefault_runtime = "crun"\n';
const MESSAGE =
  "MachineConfigPool worker targets a RHEL 10 OS image where runc is not available. To unblock, migrate to crun by removing any " +
  'ContainerRuntimeConfig that sets defaultRuntime to runc, and removing any MachineConfig that sets default_runtime = "runc" in CRI-O configuration under /etc/crio/crio.conf.d/';

const source = (name: string, files: Record<string, string>): DumpObject => {
  // An admin MachineConfig names no OS image (one that does overrides it, below).
  const doc = machineConfigDoc({ files, users: null, osImageURL: "" }, name) as unknown as DumpObject;
  doc.metadata.labels = { [ROLE]: "worker" };
  return doc;
};
const pool = (stream: string | null, name = "worker", role = "worker"): DumpObject => ({
  apiVersion: "machineconfiguration.openshift.io/v1",
  kind: "MachineConfigPool",
  metadata: { name },
  spec: {
    machineConfigSelector: { matchExpressions: [{ key: ROLE, operator: "In", values: [...new Set(["worker", role])] }] },
    configuration: { name: `rendered-${name}-1`, source: [{ name: "00-worker" }] },
    ...(stream ? { osImageStream: { name: stream } } : {}),
  },
  status: { machineCount: 3, conditions: [] },
});
/** ClusterVersion at `current`, installed at `installed` (the MCO's GetInstallVersion reads the earliest Completed entry). */
const clusterVersion = (current: string, installed = "4.12.7"): DumpObject => ({
  apiVersion: "config.openshift.io/v1",
  kind: "ClusterVersion",
  metadata: { name: "version" },
  status: {
    desired: { version: current },
    history: [
      { state: "Completed", version: current, startedTime: "2026-11-01T00:00:00Z", completionTime: "2026-11-01T02:00:00Z" },
      { state: "Completed", version: installed, startedTime: "2023-03-01T00:00:00Z", completionTime: "2023-03-01T01:00:00Z" },
    ],
  },
});
const osImageStream = (statusDefault: string, specDefault?: string): DumpObject => ({
  apiVersion: "machineconfiguration.openshift.io/v1",
  kind: "OSImageStream",
  metadata: { name: "cluster" },
  spec: specDefault ? { defaultStream: specDefault } : {},
  status: { defaultStream: statusDefault, availableStreams: [{ name: "rhel-10" }, { name: "rhel-9" }] },
});
const featureGate = (featureSet: string, entry?: { version: string; enabled: string[] }): DumpObject => ({
  apiVersion: "config.openshift.io/v1",
  kind: "FeatureGate",
  metadata: { name: "cluster" },
  spec: { featureSet },
  status: { featureGates: entry ? [{ version: entry.version, enabled: entry.enabled.map((name) => ({ name })), disabled: [] }] : [] },
});
const infrastructure = (controlPlaneTopology: string): DumpObject => ({
  apiVersion: "config.openshift.io/v1",
  kind: "Infrastructure",
  metadata: { name: "cluster" },
  status: { controlPlaneTopology, infrastructureTopology: "HighlyAvailable" },
});
const proposal = await readProposedMachineConfig(JSON.stringify(source("50-worker-runc", { "/etc/crio/crio.conf.d/50-runc": RUNC })));
const infraRunc = source("50-infra-runc", { "/etc/crio/crio.conf.d/50-runc": RUNC });
infraRunc.metadata.labels = { [ROLE]: "infra" };
const infraProposal = await readProposedMachineConfig(JSON.stringify(infraRunc));
const base = [source("00-worker", { "/etc/motd": "hi\n" }), clusterVersion("4.23.1")];
const notesOf = async (objects: DumpObject[], change = proposal, how: typeof origin | typeof stored = origin) => {
  const result = await previewFrom(new CapturedCluster(objects), "c1", change, how, audienceOf({ role: "viewer" }));
  // Only the notes about the render controller (others say, for example, whose disruption policy applies).
  return Object.fromEntries(result.pools.map((p) => [p.pool, p.notes.filter((n) => n.includes("render controller")).join("\n")]));
};
const stored = { source: "stored" as const, observedAt: "2026-11-26T00:00:00Z", sourceNote: "kept" };
const infraMessage = MESSAGE.replace("MachineConfigPool worker", "MachineConfigPool infra");
const origin = { source: "live" as const, observedAt: "2026-11-26T00:00:00Z", sourceNote: null };

describe("DetectRuncInMachineConfig: the last drop-in in lexicographic order that sets default_runtime wins", () => {
  it.each([
    ["runc alone", { "/etc/crio/crio.conf.d/01-runc": RUNC }, "runc"],
    ["a later crun overrides it", { "/etc/crio/crio.conf.d/01-runc": RUNC, "/etc/crio/crio.conf.d/99-crun": CRUN }, "crun"],
    [
      "a later drop-in that sets nothing leaves it",
      { "/etc/crio/crio.conf.d/01-runc": RUNC, "/etc/crio/crio.conf.d/99-log": '[crio.runtime]\nlog_level = "info"\n' },
      "runc",
    ],
    ["outside the drop-in directory it does not count", { "/etc/crio/crio.conf": RUNC }, null],
  ])("%s", (_rule, files, runtime) => {
    expect(effectiveCrioRuntime(rendered({ files, users: null }))).toEqual({ runtime });
  });

  it("validateNoRuncOnRHEL10FromOSImageStream: only rhel-10 and centos-10 pools are refused", () => {
    const config = rendered({ files: { "/etc/crio/crio.conf.d/01-runc": RUNC }, users: null });
    expect(runcOnRhel10Refusal("worker", "rhel-10", config)).toBe(MESSAGE);
    expect(runcOnRhel10Refusal("worker", "centos-10", config)).toBe(MESSAGE);
    expect(runcOnRhel10Refusal("worker", "rhel-9", config)).toBeNull();
    expect(runcOnRhel10Refusal("worker", null, config)).toBeNull();
  });
});

describe("the preview says when the MCO would refuse to render the pool", () => {
  it("a rhel-10 pool given runc: the render controller's words, and that its nodes keep their configuration", async () => {
    const notes = await notesOf([...base, osImageStream("rhel-9"), pool("rhel-10")]);
    expect(notes.worker).toContain(
      `pool worker is on OS image stream rhel-10 (its own spec.osImageStream.name), and with this change the MCO's render controller refuses to render it ("${MESSAGE}")`,
    );
  });

  it("a pool already on runc: the refusal was there before this change", async () => {
    const objects = [pool("rhel-10"), source("00-worker", { "/etc/crio/crio.conf.d/01-runc": RUNC }), clusterVersion("4.23.1")];
    const motd = await readProposedMachineConfig(JSON.stringify(source("50-worker-motd", { "/etc/motd": "bye\n" })));
    expect((await notesOf([...objects, osImageStream("rhel-9")], motd)).worker).toContain(
      "already before this change the MCO's render controller refuses to render it",
    );
  });

  it("GetEffectiveOSImageStreamName/IsCustomPool: a custom pool without a stream inherits rhel-10 from worker and is refused with runc", async () => {
    const notes = await notesOf([...base, osImageStream("rhel-9"), pool("rhel-10"), pool(null, "infra", "infra")], infraProposal);
    expect(notes.infra).toContain(
      `pool infra is on OS image stream rhel-10 (inherited from the worker pool, as a custom pool without a stream of its own does (GetEffectiveOSImageStreamName)), and with this change the MCO's render controller refuses to render it ("${infraMessage}")`,
    );
  });

  it("IsCustomPool: master does not inherit the worker pool's stream; it takes the cluster default rhel-9 and is not refused", async () => {
    const masterRunc = source("50-master-runc", { "/etc/crio/crio.conf.d/50-runc": RUNC });
    masterRunc.metadata.labels = { [ROLE]: "master" };
    const notes = await notesOf(
      [...base, osImageStream("rhel-9"), pool("rhel-10"), pool(null, "master", "master")],
      await readProposedMachineConfig(JSON.stringify(masterRunc)),
    );
    expect(Object.keys(notes)).toEqual(["master"]);
    expect(notes.master).toBe("");
  });

  it("GetOSImageStreamSetByName: a pool without a stream takes OSImageStream's status.defaultStream, not a spec the controller has not applied", async () => {
    expect((await notesOf([...base, osImageStream("rhel-10", "rhel-9"), pool(null)])).worker).toContain(
      "pool worker is on OS image stream rhel-10 (the cluster's default, OSImageStream/cluster status.defaultStream)",
    );
    expect((await notesOf([...base, osImageStream("rhel-9", "rhel-10"), pool(null)])).worker).toBe("");
  });

  it("the OSStreams gate at the cluster's release: the 4.22 MCO has no check, HyperShift Default is off, the FeatureGate status entry decides", async () => {
    const rhel10 = [source("00-worker", { "/etc/motd": "hi\n" }), osImageStream("rhel-9"), pool("rhel-10")];
    expect((await notesOf([...rhel10, clusterVersion("4.22.3"), featureGate("TechPreviewNoUpgrade")])).worker).toBe("");
    expect((await notesOf([...rhel10, clusterVersion("4.23.1"), featureGate(""), infrastructure("External")])).worker).toBe("");
    expect(
      (await notesOf([...rhel10, clusterVersion("4.23.1"), featureGate("TechPreviewNoUpgrade"), infrastructure("External")])).worker,
    ).toContain("refuses to render it");
    const listed = (enabled: string[]) => featureGate("CustomNoUpgrade", { version: "4.23.1", enabled });
    expect((await notesOf([...rhel10, clusterVersion("4.23.1"), listed(["OSStreams"])])).worker).toContain("refuses to render it");
    expect((await notesOf([...rhel10, clusterVersion("4.23.1"), listed([])])).worker).toBe("");
    expect((await notesOf([...rhel10, clusterVersion("4.23.1"), featureGate("CustomNoUpgrade")])).worker).toBe(
      "with this change CRI-O's default runtime on pool worker is runc, and whether the MCO's render controller refuses to render it (a RHEL 10 pool cannot use runc) cannot be told: whether the cluster's MCO uses OS image streams is not known (the cluster's feature set is CustomNoUpgrade, whose OSStreams gate at the target Fleetskew cannot tell)",
    );
  });

  it("unknown, never silent, where the stream cannot be told and the change brings runc; silent where no runc is involved", async () => {
    // Kept inputs from before Fleetskew kept OSImageStream: the default stream cannot be told.
    expect((await notesOf([...base, pool(null)], proposal, stored)).worker).toContain(
      "cannot be told: its stream hangs on the cluster's default stream, and OSImageStream/cluster was not read: the configuration kept from the last sweep has none",
    );
    // A pool that names its stream needs no default.
    expect((await notesOf([...base, pool("rhel-10")], proposal, stored)).worker).toContain("refuses to render it");
    const motd = await readProposedMachineConfig(JSON.stringify(source("50-worker-motd", { "/etc/motd": "bye\n" })));
    expect((await notesOf([...base, pool(null)], motd, stored)).worker).toBe("");
    // No ClusterVersion: the release, and so the MCO's check, is not known.
    expect((await notesOf([source("00-worker", { "/etc/motd": "hi\n" }), pool(null)])).worker).toMatch(
      /the cluster's release is not known/,
    );
  });
});

describe("validateNoRuncOnRHEL10FromOSImageURL: an admin MachineConfig that overrides the OS image", () => {
  const overriding = (generated: boolean): DumpObject => {
    const mc = source("10-os-image", { "/etc/issue": "x\n" });
    (mc.spec as { osImageURL?: string }).osImageURL = "quay.io/example/os@sha256:" + "a".repeat(64);
    if (generated) mc.metadata.annotations = { "machineconfiguration.openshift.io/generated-by-controller-version": "v" };
    return mc;
  };
  const overriddenPool = (): DumpObject => {
    const p = pool("rhel-10");
    (p.spec as { configuration: { source: { name: string }[] } }).configuration.source.push({ name: "10-os-image" });
    return p;
  };

  it("the image's stream class label decides, which Fleetskew does not read: not known, even where OSStreams is off at 4.23", async () => {
    const notes = await notesOf([...base, osImageStream("rhel-9"), overriddenPool(), overriding(false)]);
    expect(notes.worker).toBe(
      "pool worker's OS image is overridden by MachineConfig 10-os-image, so the MCO's render controller judges the image itself (validateNoRuncOnRHEL10FromOSImageURL): with this change CRI-O's default runtime is runc, and whether it refuses to render the pool depends on the image's stream class label (io.openshift.os.streamclass), which Fleetskew does not read",
    );
    const hyperShift = [...base, overriddenPool(), overriding(false), featureGate(""), infrastructure("External")];
    expect((await notesOf(hyperShift)).worker).toMatch(/judges the image itself/);
    const at422 = [source("00-worker", { "/etc/motd": "hi\n" }), clusterVersion("4.22.3"), overriddenPool(), overriding(false)];
    expect((await notesOf(at422)).worker).toBe("");
  });

  it("MergeMachineConfigs skips a controller's config: its OS image is no override, and the stream decides", async () => {
    const notes = await notesOf([...base, osImageStream("rhel-9"), overriddenPool(), overriding(true)]);
    expect(notes.worker).toContain("pool worker is on OS image stream rhel-10 (its own spec.osImageStream.name), and with this change");
  });
});

describe("poolStreamsAtRender: with no OSImageStream yet, GetBuiltinDefaultStreamName by the install version", () => {
  const inputs = (installed: string, current = "5.0.1") => ({
    release: current,
    clusterVersion: {
      history: [
        { state: "Completed", version: current, startedTime: null, completionTime: "2026-11-01T02:00:00Z" },
        { state: "Completed", version: installed, startedTime: null, completionTime: "2023-03-01T01:00:00Z" },
      ],
      desired: current,
    },
    featureSet: "Default",
    enabledFeatureGates: null,
    topology: "HighlyAvailable",
    osImageStream: { status: "not-found" as const },
    notServedMeans: "n/a",
    pools: [
      { name: "worker", spec: null },
      { name: "infra", spec: null },
    ],
  });
  const runc = rendered({ files: { "/etc/crio/crio.conf.d/01-runc": RUNC }, users: null });
  const before = rendered({ files: {}, users: null });

  it("installed at 4.x: the built-in default is rhel-9 (also for the custom pool the worker leaves on the default), so runc is not refused", () => {
    const streams = poolStreamsAtRender(inputs("4.12.7"));
    expect(streams.get("infra")).toMatchObject({ check: "on", stream: { name: "rhel-9", source: "builtin" } });
    expect(runcOnRhel10Note("infra", streams.get("infra")!, before, runc)).toBeNull();
  });

  it("installed at 5.x: rhel-10, and runc is refused", () => {
    const streams = poolStreamsAtRender(inputs("5.0.0"));
    expect(streams.get("worker")).toMatchObject({ check: "on", stream: { name: "rhel-10", source: "builtin" } });
    expect(runcOnRhel10Note("worker", streams.get("worker")!, before, runc)).toContain(
      "with this change the MCO's render controller refuses",
    );
  });
});
