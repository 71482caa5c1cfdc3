import { describe, expect, it } from "vitest";
import { readMachineConfig } from "./machineConfig";
import { mergeMachineConfigs, MergeError } from "./merge";
import { machineConfigDoc, type ConfigShape } from "./testing";

const mc = (name: string, role: string, shape: ConfigShape) => {
  const doc = machineConfigDoc({ osImageURL: "", kernelType: "", ...shape }, name);
  (doc.metadata as Record<string, unknown>).labels = { "machineconfiguration.openshift.io/role": role };
  return readMachineConfig(doc);
};
const text = (c: ReturnType<typeof mergeMachineConfigs>, path: string) =>
  decodeURIComponent(String(c.files.find((f) => f.path === path)?.contents?.source).replace("data:,", ""));

describe("mergeMachineConfigs (MCO helpers.go MergeMachineConfigs)", () => {
  it("orders worker-role configs first, then the rest, each by name; later configs win per file", () => {
    const merged = mergeMachineConfigs(
      [
        mc("99-infra-chrony", "infra", { files: { "/etc/chrony.conf": "infra" } }),
        mc("99-worker-chrony", "worker", { files: { "/etc/chrony.conf": "worker 99" } }),
        mc("00-worker", "worker", { files: { "/etc/chrony.conf": "base", "/etc/motd": "hello" } }),
      ],
      "quay.io/default@sha256:" + "1".repeat(64),
    );
    expect(text(merged, "/etc/chrony.conf")).toBe("infra");
    expect(merged.files.map((f) => f.path)).toEqual(["/etc/chrony.conf", "/etc/motd"]);
    expect(merged.files.every((f) => f.overwrite === true)).toBe(true);
  });

  it("concatenates kernel arguments and extensions, takes FIPS and a non-default kernel from any config, and the last osImageURL", () => {
    const merged = mergeMachineConfigs(
      [
        mc("00-worker", "worker", { kernelArguments: ["a"], extensions: ["usbguard"] }),
        mc("50-worker-rt", "worker", {
          kernelArguments: ["b", "a"],
          kernelType: "realtime",
          fips: true,
          osImageURL: "quay.io/custom@sha256:" + "2".repeat(64),
        }),
      ],
      "quay.io/default@sha256:" + "1".repeat(64),
    );
    expect(merged).toMatchObject({
      kernelArguments: ["a", "b", "a"],
      extensions: ["usbguard"],
      kernelType: "realtime",
      fips: true,
      osImageURL: "quay.io/custom@sha256:" + "2".repeat(64),
    });
    expect(mergeMachineConfigs([mc("00-worker", "worker", {})], "quay.io/default").osImageURL).toBe("quay.io/default");
  });

  it("merges units and their dropins by name", () => {
    const merged = mergeMachineConfigs(
      [
        mc("00-worker", "worker", {
          units: [{ name: "a.service", contents: "[Unit]\n", enabled: true, dropins: [{ name: "10.conf", contents: "x" }] }],
        }),
        mc("99-worker", "worker", { units: [{ name: "a.service", dropins: [{ name: "20.conf", contents: "y" }] }] }),
      ],
      "",
    );
    expect(merged.units).toHaveLength(1);
    expect(merged.units[0]).toMatchObject({ contents: "[Unit]\n", enabled: true });
    expect(merged.units[0]!.dropins!.map((d) => d.name)).toEqual(["10.conf", "20.conf"]);
  });

  it("refuses kernel-devel with a non-default kernel, as the MCO does", () => {
    expect(() => mergeMachineConfigs([mc("00-worker", "worker", { extensions: ["kernel-devel"], kernelType: "realtime" })], "")).toThrow(
      MergeError,
    );
  });
});
