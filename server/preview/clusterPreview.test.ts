import { describe, expect, it } from "vitest";
import { machineConfigDoc } from "../domain/disruption/testing";
import { CapturedCluster } from "../kube/captured";
import type { DumpObject } from "../kube/dumps";
import { audienceOf, previewFrom, readProposedMachineConfig } from "./clusterPreview";

const ROLE = "machineconfiguration.openshift.io/role";
const source = (name: string, files: Record<string, string>): DumpObject => {
  const doc = machineConfigDoc({ files, users: null }, name) as unknown as DumpObject;
  doc.metadata.labels = { [ROLE]: "worker" };
  return doc;
};
const pool = (configuration: Record<string, unknown> | undefined): DumpObject => ({
  apiVersion: "machineconfiguration.openshift.io/v1",
  kind: "MachineConfigPool",
  metadata: { name: "worker" },
  spec: { machineConfigSelector: { matchLabels: { [ROLE]: "worker" } }, ...(configuration ? { configuration } : {}) },
  status: { machineCount: 4, conditions: [] },
});
const proposed = await readProposedMachineConfig(JSON.stringify(source("50-worker-sysctl", { "/etc/sysctl.d/99-x.conf": "x\n" })));
const origin = { source: "live" as const, observedAt: "2026-01-01T00:00:00Z", sourceNote: null };

describe("a pool whose current configuration cannot be rebuilt", () => {
  // [rule, pool's spec.configuration, verdict, note]
  const cases: [string, Record<string, unknown> | undefined, string, RegExp | null][] = [
    [
      "no source list: comparing the proposal with itself would say 'No disruption', so the verdict is Unknown, with the reason",
      undefined,
      "Unknown",
      /lists no source MachineConfigs that could be read \(spec\.configuration\.source is empty: the pool may not be rendered yet\)/,
    ],
    [
      "sources that are all missing on the cluster: the same",
      { name: "rendered-worker-1", source: [{ name: "00-gone" }] },
      "Unknown",
      /source MachineConfigs not found on the cluster and left out: 00-gone/,
    ],
    [
      "§4 step 5: with its sources the pool is judged (a new sysctl file reboots)",
      { name: "rendered-worker-1", source: [{ name: "00-worker" }] },
      "Reboot",
      null,
    ],
  ];
  it.each(cases)("%s", async (_rule, configuration, verdict, note) => {
    const cluster = new CapturedCluster([pool(configuration), source("00-worker", { "/etc/motd": "hi\n" })]);
    const result = await previewFrom(cluster, "c1", proposed, origin, audienceOf({ role: "viewer" }));
    expect(result.pools).toHaveLength(1);
    expect(result.pools[0]).toMatchObject({ pool: "worker", verdict, nodes: 4 });
    if (note) expect(result.pools[0]!.notes.join("\n")).toMatch(note);
  });
});
