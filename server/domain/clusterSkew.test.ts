import { describe, expect, it } from "vitest";
import { assessSkew, bootImageControllerState, clusterSkew, firstEnforcingRelease, managedBootImagesWhatIf } from "./clusterSkew";
import { lagMinors, oldestBootImage } from "./oldestBootImage";
import type { ClusterSnapshot } from "./snapshot";
import { docs, ocpMessage, manualSpec, variant } from "./testing/skew";
import {
  cond,
  healthyCluster,
  history,
  machineSet,
  PROD_EAST_422_MESSAGE,
  prodEast,
  prodEast422,
  prodEast422Acknowledged,
  versionFacts,
} from "./testing/snapshots";
import { platformMinor } from "./skewEnforcement";

describe("assessSkew: the Upgradeable condition and its message (docs/openshift.md §17.2, §17.3)", () => {
  it("prod-east at 4.19.10 predicted at 4.22.3: Manual fallback with 4.12.7 → Upgradeable=False, ClusterBootImageSkewError, word for word", () => {
    const a = assessSkew(prodEast(), "4.22.3");
    expect(a.limits).toEqual({ ocpVersion: "4.13.0", rhelVersion: "9.2" });
    expect(a.enforcement).toMatchObject({ mode: "Manual", value: { ocpVersion: "4.12.7" }, installVersionFallback: true });
    expect(a.block).toEqual({ reason: "ClusterBootImageSkewError", message: PROD_EAST_422_MESSAGE, source: "predicted" });
    expect(a.block?.message).toBe(ocpMessage("4.12.7", "4.22"));
  });

  it("prod-east projected at 4.22.3: the block is read from ClusterOperator machine-config, in the cluster's words", () => {
    const s = prodEast422();
    const co = s.machineConfigOperator!.find((c) => c.type === "Upgradeable")!;
    co.message = "the cluster's own words";
    const a = assessSkew(s, "4.22.3");
    expect(a.enforcement.source).toBe("cluster");
    expect(a.verdict?.outcome).toBe("below-limit");
    expect(a.block).toEqual({ reason: "ClusterBootImageSkewError", message: "the cluster's own words", source: "cluster" });
  });

  type Case = { rule: string; snapshot: ClusterSnapshot; release: string; block: string | null; verdict?: string; note?: RegExp };
  const cases: Case[] = [
    {
      rule: "§17.3 docs link version = the newest history entry once at the release (4.23 predicted)",
      snapshot: prodEast422(),
      release: "4.23.2",
      block: ocpMessage("4.12.7", "4.23"),
    },
    {
      rule: "§17.3 docs link version of a minor-only release",
      snapshot: prodEast(),
      release: "4.24",
      block: ocpMessage("4.12.7", "4.24"),
    },
    {
      rule: "§17.2 RHCOS variant of the message, RHEL from the legacy build",
      snapshot: variant({ enforcement: manualSpec({ rhcosVersion: "412.86.202212081411-0" }, "RHCOSVersion") }),
      release: "4.22.1",
      block:
        "Upgrades have been disabled because the cluster is using RHCOS boot image version 412.86.202212081411-0(RHEL version: 8.6), which is below the minimum required RHEL version 9.2. To enable upgrades, please update your boot images or disable boot image skew enforcement by following the documentation at " +
        docs("4.22"),
    },
    {
      rule: "§17.2 only ocpVersion is compared when both are given",
      snapshot: variant({ enforcement: manualSpec({ ocpVersion: "4.13.0", rhcosVersion: "412.86.202212081411-0" }) }),
      release: "4.22.1",
      block: null,
      verdict: "within-limit",
    },
    {
      rule: "§17.2 the limit itself (4.13.0) is within",
      snapshot: variant({ enforcement: manualSpec({ ocpVersion: "4.13.0" }) }),
      release: "4.22.1",
      block: null,
      verdict: "within-limit",
    },
    {
      rule: "§17.2 a current-scheme RHEL 9.6 build is within",
      snapshot: variant({ enforcement: manualSpec({ rhcosVersion: "9.6.20250701-0" }, "RHCOSVersion") }),
      release: "4.22.1",
      block: null,
      verdict: "within-limit",
    },
    {
      rule: "§17.2 an unparseable OCP version is treated as in skew (no block)",
      snapshot: variant({ enforcement: manualSpec({ ocpVersion: "four.twelve" }) }),
      release: "4.22.1",
      block: null,
      verdict: "unparseable",
    },
    {
      rule: "§17.2 an unparseable RHCOS build is treated as in skew (no block)",
      snapshot: variant({ enforcement: manualSpec({ rhcosVersion: "rhcos-latest" }, "RHCOSVersion") }),
      release: "4.22.1",
      block: null,
      verdict: "unparseable",
    },
    {
      rule: "§17.2 an unparseable status value on the cluster itself does not block",
      snapshot: {
        ...prodEast422(),
        machineConfigOperator: [cond("Upgradeable", "True", "AsExpected")],
        enforcement: {
          served: true,
          spec: null,
          status: { mode: "Manual", automatic: null, manual: { mode: "OCPVersion", ocpVersion: "x.y.z", rhcosVersion: null } },
        },
      },
      release: "4.22.3",
      block: null,
      verdict: "unparseable",
    },
    {
      rule: "§17.1 an unparseable release has no limit",
      snapshot: prodEast(),
      release: "latest",
      block: null,
    },
    {
      rule: "§14 releases before 4.22 do not enforce",
      snapshot: prodEast(),
      release: "4.21.9",
      block: null,
    },
    {
      rule: "§16.1 install version unreadable → 0.0.0 is below the limit",
      snapshot: variant({ version: null }),
      release: "4.22.0",
      block: ocpMessage("0.0.0", "4.22"),
    },
    {
      rule: "§16.1 rule 3 single-node: None, nothing to compare",
      snapshot: variant({ topology: "SingleReplica" }),
      release: "4.22.0",
      block: null,
    },
    {
      rule: "§16.1 rule 4 managed + clean pass: the release's own boot images are within",
      snapshot: healthyCluster(),
      release: "4.22.0",
      block: null,
      verdict: "within-limit",
    },
    {
      rule: "§16.1 rule 2 bare metal in a snapshot stored before Provisioning was read: the legacy path is assumed, with a note",
      snapshot: variant({ platform: "BareMetal", managedMachineSets: { spec: null, status: null } }),
      release: "4.22.0",
      block: ocpMessage("4.12.7", "4.22"),
      note: /legacy provisioning path is unknown \(the Provisioning object was not read for this snapshot\)/,
    },
    {
      rule: "§17.3 DegradedPool overrides the skew reason: the skew block is still predicted underneath",
      snapshot: {
        ...prodEast422(),
        machineConfigOperator: [
          cond(
            "Upgradeable",
            "False",
            "DegradedPool",
            "One or more machine config pools are degraded, please see `oc get mcp` for further details and resolve before upgrading",
          ),
        ],
      },
      release: "4.22.3",
      block: PROD_EAST_422_MESSAGE,
      verdict: "below-limit",
      note: /overrides ClusterBootImageSkewError/,
    },
    {
      rule: "§17.3 ClusterOperator unreadable: the block is predicted from the cluster's own record",
      snapshot: { ...prodEast422(), machineConfigOperator: null },
      release: "4.22.3",
      block: PROD_EAST_422_MESSAGE,
      note: /could not be read/,
    },
    {
      rule: "§17.3 the cluster says Upgradeable=True: no block, even if its record is below (not synced yet)",
      snapshot: { ...prodEast422(), machineConfigOperator: [cond("Upgradeable", "True", "AsExpected")] },
      release: "4.22.3",
      block: null,
      verdict: "below-limit",
      note: /not report the block yet/,
    },
  ];

  it.each(cases)("$rule", ({ snapshot, release, block, verdict, note }) => {
    const a = assessSkew(snapshot, release);
    if (block === null) expect(a.block).toBeNull();
    else expect(a.block).toMatchObject({ reason: "ClusterBootImageSkewError", message: block });
    if (verdict) expect(a.verdict?.outcome).toBe(verdict);
    if (note) expect(a.notes.join(" ")).toMatch(note);
  });

  it("§17.1 takes the limits from the table it is given", () => {
    const table = [
      { fromRelease: "4.22.0", ocpVersion: "4.13.0", rhelVersion: "9.2" },
      { fromRelease: "4.25.0", ocpVersion: "4.16.0", rhelVersion: "9.4" },
    ];
    const acked = variant({ enforcement: manualSpec({ ocpVersion: "4.14.2" }) });
    expect(assessSkew(acked, "4.24.0", table).block).toBeNull();
    expect(assessSkew(acked, "4.25.1", table).block?.message).toContain(
      "OCP boot image version 4.14.2, which is below the minimum required version 4.16.0.",
    );
    expect(assessSkew(acked, "4.22.0", []).limits).toBeNull();
  });
});

describe("clusterSkew: the fleet status", () => {
  it.each([
    {
      rule: "blocked: the cluster's own Upgradeable=False",
      snapshot: prodEast422(),
      status: "blocked",
      summary: /ClusterBootImageSkewError/,
    },
    { rule: "at-risk: blocked once at the first enforcing release", snapshot: prodEast(), status: "at-risk", summary: /once at 4\.22/ },
    { rule: "ok: acknowledged with an RHCOS 9.6 boot image", snapshot: prodEast422Acknowledged(), status: "ok", summary: /within/ },
    { rule: "ok: managed boot images, clean pass predicted at 4.22", snapshot: healthyCluster(), status: "ok", summary: /4\.22\.0/ },
    {
      rule: "opted-out: spec None",
      snapshot: variant({ enforcement: { served: true, spec: { mode: "None", manual: null }, status: null } }),
      status: "opted-out",
      summary: /mode None/,
    },
    { rule: "unknown: no ClusterVersion", snapshot: variant({ version: null }), status: "unknown", summary: /not known/ },
    {
      rule: "unknown: an unparseable current version",
      snapshot: variant({ version: versionFacts(history("not-a-version")) }),
      status: "unknown",
      summary: /not known/,
    },
  ])("$rule", ({ snapshot, status, summary }) => {
    const result = clusterSkew(snapshot);
    expect(result.status).toBe(status);
    expect(result.summary).toMatch(summary);
  });

  it("is ok when no release in the table enforces", () => {
    expect(clusterSkew(prodEast(), [])).toMatchObject({ status: "ok", summary: "no release in the limits table enforces skew yet" });
  });

  it("names the first enforcing release", () => {
    expect(firstEnforcingRelease("4.19.10")).toBe("4.22.0");
    expect(firstEnforcingRelease("4.22.3")).toBe("4.22.3");
    expect(firstEnforcingRelease("4.22.3", [])).toBeNull();
    expect(firstEnforcingRelease(null)).toBeNull();
  });
});

describe("oldest boot image and lag", () => {
  it("finds prod-east's 4.12 AMI, seven minors behind", () => {
    expect(oldestBootImage(prodEast())).toEqual({
      machineSet: "prod-east-7xk2p-worker-us-east-1a",
      ocpVersion: "4.12.7",
      rhcosBuild: "412.86.202301311551-0",
      lagMinors: 7,
    });
  });

  it("orders by RHCOS build date when no OCP version is known, after known versions", () => {
    const s = healthyCluster({
      machineSets: [
        machineSet("newer", { rhcosBuild: "9.6.20250701-0" }),
        machineSet("older", { rhcosBuild: "9.4.20240501-0" }),
        machineSet("unknown"),
      ],
    });
    expect(oldestBootImage(s)?.machineSet).toBe("older");
    expect(oldestBootImage(healthyCluster({ machineSets: [machineSet("unknown")] }))).toBeNull();
  });

  it.each([
    ["4.19.10", "4.12.7", 7],
    ["4.19.10", "4.19.0", 0],
    ["4.19.10", "4.20.1", 0],
    ["5.0.1", "4.12.7", null],
    [null, "4.12.7", null],
  ])("lagMinors(%s, %s) = %s", (cluster, boot, lag) => {
    expect(lagMinors(cluster, boot)).toBe(lag);
  });

  it("treats a later major as past every 4.x minor in the platform timeline", () => {
    expect(platformMinor("4.19.10")).toBe(19);
    expect(platformMinor("5.0")).toBe(Number.MAX_SAFE_INTEGER);
    expect(platformMinor(null)).toBe(0);
  });
});

describe("managedBootImagesWhatIf", () => {
  it("prod-east: all four MachineSets would be updated, ending Automatic on 4.19.10's boot images", () => {
    const w = managedBootImagesWhatIf(prodEast());
    expect(w.supported).toBe(true);
    expect(w.wouldUpdate).toHaveLength(4);
    expect(w.wouldSkip).toEqual([]);
    expect(w.result).toBe("Automatic with the boot images of 4.19.10");
  });

  it("a skipped MachineSet keeps the install version", () => {
    const s = variant({
      machineSets: [...prodEast().machineSets, machineSet("owned", { skipReason: "has an owner reference (Foo/bar)" })],
    });
    const w = managedBootImagesWhatIf(s);
    expect(w.wouldSkip).toEqual([{ machineSet: "owned", reason: "has an owner reference (Foo/bar)" }]);
    expect(w.result).toBe("Automatic, but still the install version 4.12.7 while 1 MachineSet(s) are skipped");
  });

  it("an unsupported platform is said so", () => {
    expect(managedBootImagesWhatIf(variant({ platform: "None" }))).toMatchObject({
      supported: false,
      result: expect.stringContaining("does not update boot images on platform None"),
    });
  });
});

describe("assessSkew in Automatic mode asks the boot image controller first (docs/openshift.md §17.3)", () => {
  /**
   * A 4.22.3 cluster the MCO has put in Automatic with `ocpVersion`, with the given controller
   * conditions; ClusterOperator machine-config unread, so the MCO's answer is predicted.
   */
  const automatic = (ocpVersion: string, conditions: ReturnType<typeof cond>[]): ClusterSnapshot =>
    healthyCluster({
      machineConfigOperator: null,
      version: versionFacts(history("4.22.3", "4.12.7")),
      enforcement: { served: true, spec: null, status: { mode: "Automatic", automatic: { ocpVersion, rhcosVersion: null }, manual: null } },
      bootImageConditions: conditions,
    });
  const progressing = (status: string) =>
    cond("BootImageUpdateProgressing", status, "MAPIMachineSetUpdated", "Reconciled 3 of 3 MAPI MachineSets");
  const degraded = (status: string) =>
    cond(
      "BootImageUpdateDegraded",
      status,
      "MAPIMachineSetUpdated",
      status === "True"
        ? "1 Degraded MAPI MachineSets | Error(s): error syncing MachineSet worker-a: access denied"
        : "0 Degraded MAPI MachineSets",
    );

  it("a degraded controller blocks, whatever the value, with the MCO's words and the controller's message", () => {
    const s = automatic("4.22.0", [progressing("False"), degraded("True")]);
    expect(bootImageControllerState(s.bootImageConditions)).not.toBe("ready");
    const a = assessSkew(s, "4.22.3");
    expect(a.verdict?.outcome).toBe("within-limit");
    // release-4.22 checkBootImageControllerReady: fmt.Errorf("Boot image controller is degraded: %s", …).
    expect(a.block).toEqual({
      reason: "ClusterBootImageSkewError",
      message:
        "Upgrades have been disabled due to boot image update failures: Boot image controller is degraded: 1 Degraded MAPI MachineSets | Error(s): error syncing MachineSet worker-a: access denied",
      source: "predicted",
    });
  });

  it("checkBootImageControllerReady on release-4.23 and main writes the error in lower case", () => {
    const conditions = [progressing("False"), degraded("True")];
    expect(bootImageControllerState(conditions, "4.23.0")).toEqual({
      message:
        "Upgrades have been disabled due to boot image update failures: boot image controller is degraded: 1 Degraded MAPI MachineSets | Error(s): error syncing MachineSet worker-a: access denied",
    });
    expect(bootImageControllerState(conditions, "5.0.1")).toMatchObject({
      message: expect.stringContaining(": boot image controller is degraded"),
    });
    expect(bootImageControllerState(conditions, "4.22.9")).toMatchObject({
      message: expect.stringContaining(": Boot image controller is degraded"),
    });
  });

  it.each([
    ["Progressing is True", [progressing("True"), degraded("False")]],
    ["Progressing is missing", [degraded("False")]],
  ])("no block while the controller has not finished a pass (%s), even below the limit", (_what, conditions) => {
    const a = assessSkew(automatic("4.12.7", conditions), "4.22.3");
    expect(a.verdict?.outcome).toBe("below-limit");
    expect(a.block).toBeNull();
    expect(a.notes.join(" ")).toContain("skips the skew check");
  });

  it("a finished, healthy pass compares the value as usual", () => {
    const a = assessSkew(automatic("4.12.7", [progressing("False"), degraded("False")]), "4.22.3");
    expect(a.block).toEqual({ reason: "ClusterBootImageSkewError", message: ocpMessage("4.12.7", "4.22"), source: "predicted" });
  });

  it("Manual mode does not depend on the controller", () => {
    const s = automatic("4.12.7", []);
    s.enforcement = {
      served: true,
      spec: null,
      status: { mode: "Manual", automatic: null, manual: { mode: "OCPVersion", ocpVersion: "4.12.7", rhcosVersion: null } },
    };
    expect(assessSkew(s, "4.22.3").block?.message).toBe(ocpMessage("4.12.7", "4.22"));
  });
});
