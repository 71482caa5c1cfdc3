import { describe, expect, it } from "vitest";
import { effectiveCrioRuntime, runcOnRhel10Refusal } from "../domain/disruption/osStreams";
import { machineConfigDoc, rendered } from "../domain/disruption/testing";
import { CapturedCluster } from "../kube/captured";
import type { DumpObject } from "../kube/dumps";
import { audienceOf, previewFrom, readProposedMachineConfig } from "./clusterPreview";

/*
 * The render controller's refusal of RHEL 10 pools that still use runc (MCO release-4.23 d20efd9b9bdb,
 * render_controller.go validateNoRuncOnRHEL10FromOSImageStream, helpers.go DetectRuncInMachineConfig;
 * docs/openshift.md §25.1).
 */
const ROLE = "machineconfiguration.openshift.io/role";
const RUNC = '[crio.runtime]\ndefault_runtime = "runc"\n';
const CRUN = '[crio.runtime]\ndefault_runtime = "crun"\n';
const MESSAGE =
  "MachineConfigPool worker targets a RHEL 10 OS image where runc is not available. To unblock, migrate to crun by removing any " +
  'ContainerRuntimeConfig that sets defaultRuntime to runc, and removing any MachineConfig that sets default_runtime = "runc" in CRI-O configuration under /etc/crio/crio.conf.d/';

const source = (name: string, files: Record<string, string>): DumpObject => {
  const doc = machineConfigDoc({ files, users: null }, name) as unknown as DumpObject;
  doc.metadata.labels = { [ROLE]: "worker" };
  return doc;
};
const pool = (stream: string | null): DumpObject => ({
  apiVersion: "machineconfiguration.openshift.io/v1",
  kind: "MachineConfigPool",
  metadata: { name: "worker" },
  spec: {
    machineConfigSelector: { matchLabels: { [ROLE]: "worker" } },
    configuration: { name: "rendered-worker-1", source: [{ name: "00-worker" }] },
    ...(stream ? { osImageStream: { name: stream } } : {}),
  },
  status: { machineCount: 3, conditions: [] },
});
const proposal = await readProposedMachineConfig(JSON.stringify(source("50-worker-runc", { "/etc/crio/crio.conf.d/50-runc": RUNC })));
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
    const cluster = new CapturedCluster([pool("rhel-10"), source("00-worker", { "/etc/motd": "hi\n" })]);
    const result = await previewFrom(cluster, "c1", proposal, origin, audienceOf({ role: "viewer" }));
    const notes = result.pools[0]!.notes.join("\n");
    expect(notes).toContain(
      `pool worker is on OS image stream rhel-10, and with this change the MCO's render controller refuses to render it ("${MESSAGE}")`,
    );
  });

  it("a pool on the default stream: no such note", async () => {
    const cluster = new CapturedCluster([pool(null), source("00-worker", { "/etc/motd": "hi\n" })]);
    const result = await previewFrom(cluster, "c1", proposal, origin, audienceOf({ role: "viewer" }));
    expect(result.pools[0]!.notes.join("\n")).not.toContain("refuses to render");
  });
});
