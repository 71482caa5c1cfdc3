import { describe, expect, it } from "vitest";
import { unmatchedAdvice } from "./unmatched";

const ROLE = "machineconfiguration.openshift.io/role";
const master = { name: "master", selector: { matchLabels: { [ROLE]: "master" } }, machines: 3 };

describe("why a MachineConfig does nothing on a cluster", () => {
  it("says the cluster lacks a pool for the label the MachineConfig already has, not to add that label", () => {
    const text = unmatchedAdvice("compact-1", { [ROLE]: "worker" }, [master]);
    expect(text).toBe(
      "compact-1 has no pool that selects role: worker, so this change does nothing there; its pools: master selects role: master (3 machines)",
    );
    expect(text).not.toMatch(/label it/);
  });

  it("asks for a label only when the MachineConfig has none", () => {
    expect(unmatchedAdvice("c", {}, [master])).toMatch(/has no labels, so no pool of c selects it/);
  });

  it("names a cluster without pools", () => {
    expect(unmatchedAdvice("c", { [ROLE]: "worker" }, [])).toBe("c has no MachineConfigPools, so this MachineConfig changes nothing there");
  });
});
