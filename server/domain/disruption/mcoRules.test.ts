import { describe, expect, it } from "vitest";
import { previewDisruption } from "./engine";
import { toIgnitionSpec35 } from "./ignitionSpec";
import { MachineConfigError, readMachineConfig } from "./machineConfig";
import { DEFAULT_POLICIES, defaultPoliciesFor, effectivePolicies } from "./policy";
import { unreconcilableReasons } from "./reconcilable";
import { RegistriesConfError } from "./registries";
import { BASE_FILES, editedConfig, machineConfigDoc, rendered } from "./testing";

/** The disruption preview where it used to disagree with the MCO, each case naming the MCO function. */
const link = (path: string, target: string) => ({ path, target, hard: false });

describe("item 5: isConfigReconcilable refuses any change of storage.links unless the new list is empty", () => {
  const withLinks = (links: unknown[] | undefined) => rendered({ files: BASE_FILES, links });
  it.each([
    { what: "adding a link is refused", before: undefined, after: [link("/etc/a", "/etc/b")], refused: true },
    { what: "changing a link's target is refused", before: [link("/etc/a", "/etc/b")], after: [link("/etc/a", "/etc/c")], refused: true },
    {
      what: "removing one of two links is refused (the new list is not empty)",
      before: [link("/etc/a", "/etc/b"), link("/etc/c", "/etc/d")],
      after: [link("/etc/a", "/etc/b")],
      refused: true,
    },
    { what: "removing every link is accepted", before: [link("/etc/a", "/etc/b")], after: [], refused: false },
    { what: "dropping the list altogether is accepted", before: [link("/etc/a", "/etc/b")], after: undefined, refused: false },
    { what: "leaving them as they are is accepted", before: [link("/etc/a", "/etc/b")], after: [link("/etc/a", "/etc/b")], refused: false },
  ])("$what", ({ before, after, refused }) => {
    const reasons = unreconcilableReasons(withLinks(before), withLinks(after));
    expect(reasons.some((r) => r.startsWith("storage.links changed"))).toBe(refused);
  });
});

describe("item 6: isSafeContainerRegistryConfChanges reads registries.conf through GetIgnitionFileDataByPath, which does not decompress", () => {
  const registries = (text: string, gzip: boolean) =>
    rendered({ files: { ...BASE_FILES, "/etc/containers/registries.conf": gzip ? { gzip: text } : text } });
  const mirror = `${BASE_FILES["/etc/containers/registries.conf"]}\n[[registry]]\nprefix = ""\nlocation = "quay.io/x"\n\n[[registry.mirror]]\nlocation = "mirror.example.com/x"\npull-from-mirror = "digest-only"\n`;
  const policy = { policies: DEFAULT_POLICIES, policySource: "defaults" as const };

  it("a gzip-compressed new file fails the TOML check, so the update fails: the preview refuses to predict it", () => {
    expect(() =>
      previewDisruption(registries(BASE_FILES["/etc/containers/registries.conf"]!, false), registries(mirror, true), policy),
    ).toThrow(
      new RegistriesConfError(
        "/etc/containers/registries.conf is gzip-compressed, and the MCO reads it without decompressing it (GetIgnitionFileDataByPath), so its TOML check fails and the update fails; write the file uncompressed",
      ),
    );
  });

  it("the same change uncompressed is a safe mirror addition: reload crio without a drain", () => {
    const p = previewDisruption(registries(BASE_FILES["/etc/containers/registries.conf"]!, false), registries(mirror, false), policy);
    expect(p).toMatchObject({ reboot: false, drain: false, actions: [{ type: "Special" }] });
  });

  it("the legacy path reads it the same way (first boot)", () => {
    expect(() =>
      previewDisruption(registries(BASE_FILES["/etc/containers/registries.conf"]!, false), registries(mirror, true), {
        ...policy,
        firstBoot: true,
      }),
    ).toThrow(RegistriesConfError);
  });
});

describe("item 7a: defaultClusterPolicies differ by release (pkg/apihelpers/apihelpers.go on each release branch)", () => {
  const paths = (release: string) => defaultPoliciesFor(release).policies.files.map((f) => f.path);

  it("4.17 has no /etc/crio/policies; 4.18–4.21 lack what 4.22 added; 4.22 and later have all thirteen", () => {
    expect(paths("4.17.9")).not.toContain("/etc/crio/policies");
    expect(paths("4.17.9")).toHaveLength(7);
    for (const r of ["4.18.1", "4.21.30"]) {
      expect(paths(r)).toContain("/etc/crio/policies");
      expect(paths(r)).not.toContain("/etc/kubernetes/credential-providers");
      expect(paths(r)).not.toContain("/etc/iri-registry");
      expect(defaultPoliciesFor(r).policies.units).toEqual([]);
    }
    expect(paths("4.22.0")).toHaveLength(13);
    expect(defaultPoliciesFor("5.0.1").policies).toBe(DEFAULT_POLICIES);
    expect(defaultPoliciesFor("4.16.3")).toMatchObject({ legacy: true });
    expect(paths("4.16.3")).toEqual(DEFAULT_POLICIES.files.slice(0, 4).map((f) => f.path));
  });

  it("without a policy status the cluster's release decides: a credential-provider change reboots a 4.21 node, restarts the kubelet on 4.22", () => {
    const before = rendered({ files: BASE_FILES });
    const after = rendered({ files: { ...BASE_FILES, "/etc/kubernetes/credential-providers/ecr.yaml": "apiVersion: v1\n" } });
    const on = (release: string) => {
      const { policies, source, legacy } = effectivePolicies({ spec: {} }, [], release);
      return previewDisruption(before, after, { policies, policySource: source, firstBoot: legacy });
    };
    expect(on("4.21.8")).toMatchObject({ reboot: true });
    expect(on("4.22.3")).toMatchObject({ reboot: false, actions: [{ type: "Restart", restart: { serviceName: "kubelet.service" } }] });
    expect(on("4.16.9")).toMatchObject({ path: "legacy", reboot: true });
  });

  it("a status, when there is one, is used whatever the release", () => {
    const status = { files: [{ path: "/etc/x", actions: [{ type: "None" }] }], units: [], sshkey: { actions: [{ type: "None" }] } };
    expect(effectivePolicies({ status: { nodeDisruptionPolicyStatus: { clusterPolicies: status } } }, [], "4.17.1")).toMatchObject({
      source: "cluster-status",
      legacy: false,
      policies: { files: [{ path: "/etc/x" }] },
    });
  });
});

describe("item 7b: ParseAndConvertConfig drops keys the config's spec does not know and converts older specs to 3.5", () => {
  it("a key Ignition does not know is no change to the MCO", () => {
    const before = rendered({ files: BASE_FILES });
    const after = editedConfig({ files: BASE_FILES }, (doc) => {
      (doc.spec.config.storage.files[0] as Record<string, unknown>).comment = "added by a tool";
      (doc.spec.config.systemd as Record<string, unknown>).timers = [];
    });
    expect(previewDisruption(before, after, { policies: DEFAULT_POLICIES, policySource: "defaults" })).toMatchObject({
      reboot: false,
      actions: [{ type: "None" }],
      changes: [],
    });
  });

  it("a key a later spec added is dropped from an older spec's config (shouldExist is 3.2, httpHeaders 3.1)", () => {
    const converted = toIgnitionSpec35({
      ignition: { version: "3.1.0" },
      passwd: { users: [{ name: "core", shouldExist: false, sshAuthorizedKeys: ["k"] }] },
      storage: { files: [{ path: "/a", contents: { source: "data:,x", httpHeaders: [{ name: "h", value: "v" }] } }] },
    });
    expect(converted).toMatchObject({ ok: true, from: "3.1.0" });
    const config = (converted as { config: Record<string, any> }).config;
    expect(config.ignition.version).toBe("3.5.0");
    expect(config.passwd.users[0]).toEqual({ name: "core", sshAuthorizedKeys: ["k"] });
    expect(config.storage.files[0].contents.httpHeaders).toEqual([{ name: "h", value: "v" }]);
    const v30 = toIgnitionSpec35({ ignition: { version: "3.0.0" }, storage: { files: [{ path: "/a", contents: { httpHeaders: [] } }] } });
    expect((v30 as { config: Record<string, any> }).config.storage.files[0].contents).toEqual({});
  });

  it("config/v3_4/translate drops setuid, setgid and sticky bits from specs before 3.4, so 04755 in 3.3 equals 0755 in 3.5", () => {
    const doc = (version: string, mode: number) => {
      const d = machineConfigDoc({ files: BASE_FILES });
      d.spec.config.ignition.version = version;
      d.spec.config.storage.files = d.spec.config.storage.files.map((f) => ({ ...f, mode }));
      return readMachineConfig(d);
    };
    expect(doc("3.3.0", 0o4755).files![0]!.mode).toBe(0o755);
    expect(doc("3.4.0", 0o4755).files![0]!.mode).toBe(0o4755);
    const p = previewDisruption(doc("3.5.0", 0o755), doc("3.2.0", 0o4755), { policies: DEFAULT_POLICIES, policySource: "defaults" });
    expect(p.changes).toEqual([]);
  });

  it("spec 2.2 is converted (removeIgnDuplicateFilesUnitsUsers, ign-converter v23tov30): the last definition of a path wins, overwrite defaults to true", () => {
    const converted = toIgnitionSpec35({
      ignition: { version: "2.2.0" },
      storage: {
        files: [
          { filesystem: "root", path: "/etc/a", contents: { source: "data:,one" }, mode: 420 },
          { filesystem: "root", path: "/etc/a", contents: { source: "data:,two" }, mode: 420 },
        ],
      },
      systemd: { units: [{ name: "x.service", enable: true, contents: "[Unit]\n" }] },
      passwd: {
        users: [
          { name: "core", sshAuthorizedKeys: ["k1"] },
          { name: "core", sshAuthorizedKeys: ["k2"] },
        ],
      },
    }) as { ok: true; config: Record<string, any> };
    expect(converted.ok).toBe(true);
    expect(converted.config.storage.files).toEqual([
      { path: "/etc/a", overwrite: true, user: {}, group: {}, mode: 420, contents: { source: "data:,two", verification: {} } },
    ]);
    expect(converted.config.systemd.units).toEqual([{ name: "x.service", enabled: true, contents: "[Unit]\n" }]);
    expect(converted.config.passwd.users).toEqual([{ name: "core", sshAuthorizedKeys: ["k2", "k1"] }]);
  });

  it.each([
    [{ ignition: { version: "3.6.0" } }, "unknown version"],
    [{ ignition: { version: "2.3.0" } }, "unknown version"],
    [{ ignition: { version: "3.1.1" } }, "unknown version"],
    [{ ignition: { version: "three" } }, "invalid version"],
    [
      { ignition: { version: "2.2.0" }, passwd: { users: [{ name: "admin" }] } },
      "unexpected user with name: admin. Only core user is supported",
    ],
  ])("%j is refused as the MCO refuses it (%s)", (config, error) => {
    const doc = machineConfigDoc({});
    (doc.spec as Record<string, unknown>).config = config;
    expect(() => readMachineConfig(doc)).toThrow(MachineConfigError);
    expect(() => readMachineConfig(doc)).toThrow(error);
  });
});
