import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkBootImageSkew, installVersion, skewLimitsFor } from "./skew";
import { parseOcpVersion, parseRhcosBuild } from "./versions";

const fixtureDir = path.join(__dirname, "../simulator/fixtures");
const read = (f: string) => JSON.parse(readFileSync(path.join(fixtureDir, f), "utf8"));

describe("versions", () => {
  it("parses OCP versions the way ParseGeneric does", () => {
    expect(parseOcpVersion("4.19.10")).toEqual({ major: 4, minor: 19, patch: 10 });
    expect(parseOcpVersion("4.13")).toEqual({ major: 4, minor: 13, patch: 0 });
    expect(parseOcpVersion("4.14.0-ec.2")).toEqual({ major: 4, minor: 14, patch: 0 });
    expect(parseOcpVersion("four")).toBeNull();
  });

  it("reads legacy and current RHCOS build strings", () => {
    expect(parseRhcosBuild("412.86.202212081411-0")).toMatchObject({
      scheme: "legacy",
      rhel: { major: 8, minor: 6 },
      ocpMinor: "4.12",
      date: "2022-12-08",
    });
    expect(parseRhcosBuild("418.94.202501221327-0")).toMatchObject({ rhel: { major: 9, minor: 4 }, ocpMinor: "4.18" });
    expect(parseRhcosBuild("416.810.202402011234-0")).toMatchObject({ rhel: { major: 8, minor: 10 } });
    expect(parseRhcosBuild("9.6.20250701-0")).toMatchObject({
      scheme: "current",
      rhel: { major: 9, minor: 6 },
      ocpMinor: null,
      date: "2025-07-01",
    });
    expect(parseRhcosBuild("rhcos-latest")).toBeNull();
  });
});

describe("skew limits", () => {
  it("are enforced from 4.22 on, not before", () => {
    expect(skewLimitsFor("4.21.9")).toBeNull();
    expect(skewLimitsFor("4.22.0")).toEqual({ ocpVersion: "4.13.0", rhelVersion: "9.2" });
    expect(skewLimitsFor("4.23.1")).toEqual({ ocpVersion: "4.13.0", rhelVersion: "9.2" });
    expect(skewLimitsFor("not a version")).toBeNull();
  });

  it("take a later table entry when an admin adds one", () => {
    const table = [
      { fromRelease: "4.22.0", ocpVersion: "4.13.0", rhelVersion: "9.2" },
      { fromRelease: "4.25.0", ocpVersion: "4.16.0", rhelVersion: "9.4" },
    ];
    expect(skewLimitsFor("4.24.3", table)?.ocpVersion).toBe("4.13.0");
    expect(skewLimitsFor("4.25.0", table)?.ocpVersion).toBe("4.16.0");
  });
});

describe("checkBootImageSkew", () => {
  const limits = { ocpVersion: "4.13.0", rhelVersion: "9.2" };

  it("predicts the reference cluster's Upgradeable=False message word for word", () => {
    const mc = read("prod-east-422/machineconfiguration.json");
    const co = read("prod-east-422/clusteroperator-machine-config.json");
    const expected = co.status.conditions.find((c: { type: string }) => c.type === "Upgradeable");
    const verdict = checkBootImageSkew(mc.status.bootImageSkewEnforcementStatus.manual, limits, "4.22.3");
    expect(verdict.outcome).toBe("below-limit");
    expect(verdict.outcome === "below-limit" && verdict.message).toBe(expected.message);
    expect(expected.reason).toBe("ClusterBootImageSkewError");
  });

  it("compares only the OCP version when both are given", () => {
    expect(checkBootImageSkew({ ocpVersion: "4.13.0", rhcosVersion: "412.86.202212081411-0" }, limits, "4.22.1").outcome).toBe(
      "within-limit",
    );
  });

  it("compares the RHEL version of an RHCOS build, with the MCO's wording", () => {
    const verdict = checkBootImageSkew({ rhcosVersion: "412.86.202212081411-0" }, limits, null);
    expect(verdict).toMatchObject({ outcome: "below-limit", rhel: "8.6" });
    expect(verdict.outcome === "below-limit" && verdict.message).toBe(
      "Upgrades have been disabled because the cluster is using RHCOS boot image version 412.86.202212081411-0(RHEL version: 8.6), which is below the minimum required RHEL version 9.2. To enable upgrades, please update your boot images or disable boot image skew enforcement by following the documentation at https://docs.redhat.com/en/documentation/openshift_container_platform/latest/html/machine_configuration/mco-update-boot-skew-mgmt",
    );
    expect(checkBootImageSkew({ rhcosVersion: "9.6.20250701-0" }, limits, "4.22.3").outcome).toBe("within-limit");
    expect(checkBootImageSkew({ rhcosVersion: "9.0.20220510-0" }, limits, "4.22.3").outcome).toBe("below-limit");
  });

  it("treats unparseable values as not blocking, with a warning", () => {
    expect(checkBootImageSkew({ ocpVersion: "four.twelve" }, limits, "4.22.3")).toMatchObject({ outcome: "unparseable" });
    expect(checkBootImageSkew({ rhcosVersion: "latest" }, limits, "4.22.3")).toMatchObject({ outcome: "unparseable" });
    expect(checkBootImageSkew({}, limits, "4.22.3").outcome).toBe("no-value");
  });
});

describe("installVersion", () => {
  it("is the oldest Completed history entry, as the MCO reads it", () => {
    expect(installVersion(read("prod-east/clusterversion.json").status.history)).toBe("4.12.7");
  });

  it("falls back to the oldest entry, then to 0.0.0", () => {
    expect(
      installVersion([
        { state: "Partial", version: "4.16.3" },
        { state: "Partial", version: "4.16.2" },
      ]),
    ).toBe("4.16.2");
    expect(installVersion([])).toBe("0.0.0");
    expect(installVersion(undefined)).toBe("0.0.0");
  });
});
