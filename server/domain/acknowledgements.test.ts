import { describe, expect, it } from "vitest";
import { acknowledgementNeed, AcknowledgementRequestSchema, describeSpec, predictUpgradeable, sameSpec, specOf } from "./acknowledgements";
import { MCO_SKEW_LIMITS } from "./skew";
import { prodEast, prodEast422, prodEast422Acknowledged } from "./testing/snapshots";

const base = { cluster: "prod-east-422", evidence: "moved all MachineSets to the 4.19 AMI on 2026-11-18" };
const problemOf = (r: Record<string, unknown>) => {
  const parsed = AcknowledgementRequestSchema.safeParse({ ...base, ...r });
  return parsed.success ? null : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
};

describe("request format: the API's own rules for spec.bootImageSkewEnforcement (docs/openshift.md §13.1)", () => {
  it.each([
    [{ mode: "OCPVersion", ocpVersion: "4.19.0" }, null],
    [{ mode: "OCPVersion", ocpVersion: "10.100.100" }, null],
    [{ mode: "RHCOSVersion", rhcosVersion: "9.6.20250701-0" }, null],
    [{ mode: "RHCOSVersion", rhcosVersion: "412.86.202212081411-0" }, null],
    [{ mode: "None" }, null],
    [{ mode: "OCPVersion" }, "ocpVersion: say which OCP version the oldest machine's boot image came with, e.g. 4.19.0"],
    [{ mode: "OCPVersion", ocpVersion: "4.19" }, "ocpVersion: ocpVersion must be between 5 and 10 characters long"],
    [{ mode: "OCPVersion", ocpVersion: "v4.19.0" }, "ocpVersion: ocpVersion must match the OCP semver compatible format of x.y.z"],
    [{ mode: "OCPVersion", ocpVersion: "4.190.10000" }, "ocpVersion: ocpVersion must be between 5 and 10 characters long"],
    [
      { mode: "OCPVersion", ocpVersion: "4.19.0", rhcosVersion: "9.6.20250701-0" },
      "rhcosVersion: leave this empty when the mode is OCPVersion",
    ],
    [{ mode: "RHCOSVersion", rhcosVersion: "9.6.202507-0" }, "rhcosVersion: rhcosVersion must be between 14 and 21 characters long"],
    [
      { mode: "RHCOSVersion", rhcosVersion: "9.6.2025070100-0" },
      "rhcosVersion: rhcosVersion must match format [major].[minor].[datestamp(YYYYMMDD)]-[buildnumber] or must match legacy format [major].[minor].[timestamp(YYYYMMDDHHmm)]-[buildnumber]",
    ],
    [{ mode: "None", ocpVersion: "4.19.0" }, "ocpVersion: leave this empty when the mode is None"],
    [{ mode: "Automatic" }, "mode: mode must be OCPVersion, RHCOSVersion or None"],
    [
      { mode: "None", evidence: "trust me" },
      "evidence: describe the evidence in at least 10 characters: how do you know which boot image the oldest machine uses?",
    ],
  ])("%j → %s", (request, problem) => {
    expect(problemOf(request)).toBe(problem);
  });
});

describe("the value written and compared", () => {
  it("writes Manual with the chosen member, or None", () => {
    expect(specOf({ mode: "OCPVersion", ocpVersion: "4.19.0" })).toEqual({
      mode: "Manual",
      manual: { mode: "OCPVersion", ocpVersion: "4.19.0" },
    });
    expect(specOf({ mode: "None" })).toEqual({ mode: "None" });
  });

  it("compares values as the cluster returns them (null members, missing manual)", () => {
    const written = specOf({ mode: "RHCOSVersion", rhcosVersion: "9.6.20250701-0" });
    expect(sameSpec({ mode: "Manual", manual: { mode: "RHCOSVersion", rhcosVersion: "9.6.20250701-0", ocpVersion: null } }, written)).toBe(
      true,
    );
    expect(sameSpec({ mode: "None", manual: null }, { mode: "None" })).toBe(true);
    expect(sameSpec(null, written)).toBe(false);
    expect(describeSpec(null)).toBe("not set");
    expect(describeSpec(written)).toBe("Manual, 9.6.20250701-0");
  });
});

describe("predicted Upgradeable (docs/openshift.md §17.2)", () => {
  it.each([
    [{ mode: "RHCOSVersion" as const, rhcosVersion: "9.6.20250701-0" }, "4.22.3", true],
    [{ mode: "RHCOSVersion" as const, rhcosVersion: "412.86.202212081411-0" }, "4.22.3", false],
    [{ mode: "OCPVersion" as const, ocpVersion: "4.12.7" }, "4.22.3", false],
    [{ mode: "OCPVersion" as const, ocpVersion: "4.13.0" }, "4.22.3", true],
    [{ mode: "None" as const }, "4.22.3", true],
    [{ mode: "OCPVersion" as const, ocpVersion: "4.12.7" }, "4.19.10", true],
  ])("%j at %s → upgradeable %s", (request, release, upgradeable) => {
    expect(predictUpgradeable(request, release, MCO_SKEW_LIMITS).upgradeable).toBe(upgradeable);
  });

  it("words a block as the MCO does", () => {
    expect(predictUpgradeable({ mode: "OCPVersion", ocpVersion: "4.12.7" }, "4.22.3", MCO_SKEW_LIMITS).message).toMatch(
      /^Upgrades have been disabled because the cluster is using OCP boot image version 4\.12\.7, which is below the minimum required version 4\.13\.0\./,
    );
  });
});

describe("which clusters need one", () => {
  it("prod-east-422: Manual with the install version 4.12.7, below the limit at its own release", () => {
    expect(acknowledgementNeed(prodEast422(), MCO_SKEW_LIMITS)).toMatchObject({ release: "4.22.3", reason: "below-limit" });
  });

  it("prod-east at 4.19: assessed at 4.22.0, the first release that enforces", () => {
    expect(acknowledgementNeed(prodEast(), MCO_SKEW_LIMITS)).toMatchObject({ release: "4.22.0", reason: "below-limit" });
  });

  it("an acknowledged cluster needs none; a chosen target is honoured", () => {
    expect(acknowledgementNeed(prodEast422Acknowledged(), MCO_SKEW_LIMITS)).toBeNull();
    expect(acknowledgementNeed(prodEast(), MCO_SKEW_LIMITS, "4.22.3")?.release).toBe("4.22.3");
  });
});
