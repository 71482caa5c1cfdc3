import { describe, expect, it } from "vitest";
import { effectivePolicies } from "./policy";

const chrony = [{ path: "/etc/chrony.conf", actions: [{ type: "Restart", restart: { serviceName: "chronyd.service" } }] }];
const machineConfiguration = (generation: unknown, observedGeneration: unknown) => ({
  apiVersion: "operator.openshift.io/v1",
  kind: "MachineConfiguration",
  metadata: { name: "cluster", ...(generation === undefined ? {} : { generation }) },
  spec: { nodeDisruptionPolicy: { files: [{ path: "/etc/other.conf", actions: [{ type: "None" }] }] } },
  status: {
    ...(observedGeneration === undefined ? {} : { observedGeneration }),
    nodeDisruptionPolicyStatus: { clusterPolicies: { files: chrony, sshkey: { actions: [{ type: "None" }] } } },
  },
});

describe("a policy status behind its spec (§4 step 1, §12.5)", () => {
  // [rule, metadata.generation, status.observedGeneration, warns]
  const cases: [string, unknown, unknown, boolean][] = [
    ["§4 step 1: observedGeneration behind generation is stale: the status is used, with a warning", 4, 3, true],
    ["§12.5: a missing observedGeneration counts as 0, so a status of generation 2 is stale", 2, undefined, true],
    ["§4 step 1: observedGeneration equal to generation is ready: no warning", 3, 3, false],
    ["§4 step 1: without metadata.generation nothing can be compared: no warning", undefined, 3, false],
  ];
  it.each(cases)("%s", (_rule, generation, observed, warns) => {
    const warnings: string[] = [];
    const { policies, source, invalid } = effectivePolicies(machineConfiguration(generation, observed), warnings);
    // The rule: the status is used as it is, stale or not.
    expect(source).toBe("cluster-status");
    expect(invalid).toEqual([]);
    expect(policies.files).toEqual(chrony);
    const stale = warnings.filter((w) => /status is stale/.test(w));
    expect(stale).toHaveLength(warns ? 1 : 0);
    if (warns) {
      expect(stale[0]).toMatch(/waits \(re-reading every 5 s, up to 2 min\)/);
      expect(stale[0]).toMatch(/"NodeDisruptionPolicyStatus was not ready" instead of falling back to the defaults \(§4 step 1, §12\.5\)/);
    }
  });
});
