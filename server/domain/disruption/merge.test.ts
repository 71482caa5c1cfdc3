import { describe, expect, it } from "vitest";
import { previewDisruption } from "./engine";
import { readMachineConfig } from "./machineConfig";
import { mergeMachineConfigs, MergeError } from "./merge";
import { mergeClusterPolicies } from "./policy";
import { machineConfigDoc, type ConfigShape } from "./testing";

const mc = (name: string, role: string, shape: ConfigShape) => {
  const doc = machineConfigDoc({ osImageURL: "", kernelType: "", ...shape }, name);
  (doc.metadata as Record<string, unknown>).labels = { "machineconfiguration.openshift.io/role": role };
  return readMachineConfig(doc);
};
const text = (c: ReturnType<typeof mergeMachineConfigs>, path: string) =>
  decodeURIComponent(String(c.files!.find((f) => f.path === path)?.contents?.source).replace("data:,", ""));

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
    expect(merged.files!.map((f) => f.path)).toEqual(["/etc/chrony.conf", "/etc/motd"]);
    expect(merged.files!.every((f) => f.overwrite === true)).toBe(true);
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
    expect(merged.units!).toHaveLength(1);
    expect(merged.units![0]).toMatchObject({ contents: "[Unit]\n", enabled: true });
    expect(merged.units![0]!.dropins!.map((d) => d.name)).toEqual(["10.conf", "20.conf"]);
  });

  it("refuses kernel-devel with a non-default kernel, as the MCO does", () => {
    expect(() => mergeMachineConfigs([mc("00-worker", "worker", { extensions: ["kernel-devel"], kernelType: "realtime" })], "")).toThrow(
      MergeError,
    );
  });
});

/** A source MachineConfig with the Ignition config given as is. */
const source = (name: string, config: Record<string, unknown>, role = "worker") =>
  readMachineConfig({
    apiVersion: "machineconfiguration.openshift.io/v1",
    kind: "MachineConfig",
    metadata: { name, labels: { "machineconfiguration.openshift.io/role": role } },
    spec: { config: { ignition: { version: "3.5.0" }, ...config } },
  });
const core = (...keys: string[]) => ({ passwd: { users: [{ name: "core", sshAuthorizedKeys: keys }] } });
const files = (...list: Record<string, unknown>[]) => ({ storage: { files: list } });
const gz = "data:;base64,H4sIAAAAAAAA/8tIzcnJBwCGphA2BQAAAA==";

describe("Ignition's merge (coreos/ignition config/merge/merge.go), as MergeMachineConfigs uses it", () => {
  // [rule, source configs in merge order, what the rendered config holds]
  const cases: [string, ReturnType<typeof source>[], (merged: ReturnType<typeof mergeMachineConfigs>) => void][] = [
    [
      "merge.go 3e: a user in two configs is merged, and its SSH keys are merged by value, not replaced",
      [source("50-extra-key", core("k2")), source("99-worker-ssh", core("k1"))],
      (m) => expect(m.passwd.users).toEqual([{ name: "core", sshAuthorizedKeys: ["k2", "k1"] }]),
    ],
    [
      "merge.go 3e: a string list keeps the parent's order, a key the child repeats stays where the parent had it, the child's new keys follow in its order",
      [source("00-a", core("a", "b")), source("10-b", core("c", "b", "d"))],
      (m) => expect(m.passwd.users![0]!.sshAuthorizedKeys).toEqual(["a", "b", "c", "d"]),
    ],
    [
      'merge.go 3a/3c with helpers.go ignitionMergeSetFilesDefaultCompression: a later file\'s contents.source replaces the source and clears the gzip (the MCO sets an unset compression to "" before merging); verification stays',
      [
        source(
          "00-a",
          files({ path: "/etc/x", mode: 420, contents: { source: gz, compression: "gzip", verification: { hash: "sha512-abc" } } }),
        ),
        source("10-b", files({ path: "/etc/x", contents: { source: "data:,plain" } })),
      ],
      (m) =>
        expect(m.files).toEqual([
          {
            path: "/etc/x",
            mode: 420,
            overwrite: true,
            contents: { source: "data:,plain", verification: { hash: "sha512-abc" } },
          },
        ]),
    ],
    [
      "merge.go 3c: a field the child leaves out or sets to null keeps the parent's value; a pointer to false replaces it",
      [
        source("00-a", { systemd: { units: [{ name: "a.service", enabled: true, mask: true, contents: "[Unit]\n" }] } }),
        source("10-b", { systemd: { units: [{ name: "a.service", enabled: null, mask: false }] } }),
      ],
      (m) => expect(m.units).toEqual([{ name: "a.service", enabled: true, mask: false, contents: "[Unit]\n" }]),
    ],
    [
      "merge.go 3f: a directory at a file's path removes the parent's file; only the child's entry is left",
      [
        source("00-a", files({ path: "/etc/x", contents: { source: "data:,x" } }, { path: "/etc/y", contents: { source: "data:,y" } })),
        source("10-b", { storage: { directories: [{ path: "/etc/x", mode: 493 }] } }),
      ],
      (m) => {
        expect(m.files!.map((f) => f.path)).toEqual(["/etc/y"]);
        expect(m.storage.directories).toEqual([{ path: "/etc/x", mode: 493 }]);
      },
    ],
    [
      "merge.go 3f: a file at a link's path removes the parent's link",
      [
        source("00-a", { storage: { links: [{ path: "/etc/x", target: "/etc/t" }] } }),
        source("10-b", files({ path: "/etc/x", contents: { source: "data:,x" } })),
      ],
      (m) => {
        expect(m.storage.links).toBeNull();
        expect(m.files!.map((f) => f.path)).toEqual(["/etc/x"]);
      },
    ],
    [
      "merge.go 3d: append lists are concatenated, duplicates and all (IgnoreDuplicates)",
      [
        source("00-a", files({ path: "/etc/x", append: [{ source: "data:,1" }] })),
        source("10-b", files({ path: "/etc/x", append: [{ source: "data:,1" }, { source: "data:,2" }] })),
      ],
      (m) => expect(m.files![0]!.append).toEqual([{ source: "data:,1" }, { source: "data:,1" }, { source: "data:,2" }]),
    ],
    [
      "merge.go: an HTTP header the child lists without a value removes the parent's",
      [
        source(
          "00-a",
          files({
            path: "/etc/x",
            contents: {
              source: "https://h/x",
              httpHeaders: [
                { name: "A", value: "1" },
                { name: "B", value: "2" },
              ],
            },
          }),
        ),
        source("10-b", files({ path: "/etc/x", contents: { httpHeaders: [{ name: "A" }, { name: "C", value: "3" }] } })),
      ],
      (m) =>
        expect(m.files![0]!.contents).toEqual({
          source: "https://h/x",
          httpHeaders: [
            { name: "B", value: "2" },
            { name: "C", value: "3" },
          ],
        }),
    ],
    [
      "helpers.go: the rendered config is JSON-encoded with omitempty, so empty lists and structs are left out",
      [source("00-a", { passwd: { users: [] }, systemd: { units: [{ name: "a.service", dropins: [] }] }, storage: { files: [] } })],
      (m) => {
        expect(m.passwd.users).toBeNull();
        expect(m.files).toBeNull();
        expect(m.units).toEqual([{ name: "a.service" }]);
      },
    ],
  ];
  it.each(cases)("%s", (_rule, configs, check) => check(mergeMachineConfigs(configs, "")));

  it("§4 step 7: a proposed 50-extra-key beside 99-worker-ssh adds its key to core, so the sshkey policy applies", () => {
    const base = source("00-worker", files({ path: "/etc/motd", contents: { source: "data:,hi" } }));
    const ssh = source("99-worker-ssh", core("ssh-ed25519 K1"));
    const extra = source("50-extra-key", core("ssh-ed25519 K2"));
    const before = mergeMachineConfigs([base, ssh], "");
    const after = mergeMachineConfigs([base, extra, ssh], "");
    expect(after.passwd.users).toEqual([{ name: "core", sshAuthorizedKeys: ["ssh-ed25519 K2", "ssh-ed25519 K1"] }]);
    const policies = mergeClusterPolicies({ sshkey: { actions: [{ type: "Drain" }] } });
    expect(previewDisruption(before, after, { policies, policySource: "spec-merged-with-defaults" })).toMatchObject({
      unreconcilable: [],
      actions: [{ type: "Drain" }],
      changes: [{ kind: "ssh", name: "sshkey" }],
    });
  });
});
