import { describe, expect, it } from "vitest";
import { clusterNameFromContext, clusterNamesForContexts } from "./clusterNames";

const VALID = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

describe("cluster names from kubeconfig contexts", () => {
  it("keeps a name that is already valid", () => {
    expect(clusterNameFromContext("prod-east")).toBe("prod-east");
  });

  it("lower-cases and turns runs of other characters into one dash", () => {
    expect(clusterNameFromContext("default/api-Prod_East-example-com:6443/system:admin")).toBe(
      "default-api-prod-east-example-com-6443-system-admin",
    );
    expect(clusterNameFromContext("  Plant 07 (Lyon)  ")).toBe("plant-07-lyon");
    expect(clusterNameFromContext("Zürich")).toBe("zurich");
  });

  it("stays within 63 characters and never ends with a dash", () => {
    const name = clusterNameFromContext(`${"a".repeat(62)}-b`);
    expect(name).toBe("a".repeat(62));
    expect(clusterNameFromContext(`${"x".repeat(70)}`)).toHaveLength(63);
  });

  it("names a context with nothing usable, and avoids the reserved name", () => {
    expect(clusterNameFromContext("::/@@")).toBe("cluster");
    expect(clusterNameFromContext("")).toBe("cluster");
    expect(clusterNameFromContext("Import")).toBe("import-cluster");
  });

  it("gives contexts that sanitise alike distinct names, in order", () => {
    expect(clusterNamesForContexts(["Prod East", "prod_east", "prod-east", "other"])).toEqual([
      "prod-east",
      "prod-east-2",
      "prod-east-3",
      "other",
    ]);
    const long = clusterNamesForContexts(["y".repeat(80), "Y".repeat(80)]);
    expect(long[1]).toBe(`${"y".repeat(61)}-2`);
  });

  it("always proposes valid names", () => {
    const odd = ["-a-", "ÄÖÜ", "a..b", "0", "日本", "a".repeat(200), "--", "a_-_b"];
    for (const name of clusterNamesForContexts(odd)) {
      expect(name).toMatch(VALID);
      expect(name.length).toBeLessThanOrEqual(63);
    }
  });
});
