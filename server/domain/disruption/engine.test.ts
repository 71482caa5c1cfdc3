import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { canonical, diffConfigs } from "./diff";
import { previewDisruption, closestFilePolicy, collapseActions, type Preview } from "./engine";
import { decodeContents, parseManifest, readMachineConfig } from "./machineConfig";
import { DEFAULT_POLICIES, effectivePolicies, mergeClusterPolicies, type Action } from "./policy";
import { RegistriesConfError, registriesChangeUnsafeReason } from "./registries";
import { BASE_FILES, editedConfig, machineConfigDoc, rendered, type ConfigShape, type MachineConfigDoc } from "./testing";

const defaults = { policies: DEFAULT_POLICIES, policySource: "defaults" as const };
const base: ConfigShape = { files: BASE_FILES };
const withFiles = (files: Record<string, string>, extra: ConfigShape = {}): ConfigShape => ({
  ...base,
  ...extra,
  files: { ...BASE_FILES, ...files },
});
const run = (from: ConfigShape, to: ConfigShape, options: Partial<Parameters<typeof previewDisruption>[2]> = {}): Preview =>
  previewDisruption(rendered(from), rendered(to), { ...defaults, ...options });
const reload = (s: string): Action => ({ type: "Reload", reload: { serviceName: s } });
const restart = (s: string): Action => ({ type: "Restart", restart: { serviceName: s } });

// Every default file policy (§5), changed alone.
const defaultCases: [string, string, Action[], boolean][] = [
  ["§5 row 1: pull secret → None", "/var/lib/kubelet/config.json", [{ type: "None" }], false],
  [
    "§5 row 2: containers-gpg.pub → Reload crio",
    "/etc/machine-config-daemon/no-reboot/containers-gpg.pub",
    [reload("crio.service")],
    false,
  ],
  ["§5 row 3: policy.json → Reload crio", "/etc/containers/policy.json", [reload("crio.service")], false],
  ["§5 row 5: under registries.d → Reload crio", "/etc/containers/registries.d/example.yaml", [reload("crio.service")], false],
  ["§5 row 6: under /etc/crio/policies → Reload crio", "/etc/crio/policies/ns.json", [reload("crio.service")], false],
  ["§5 row 7: deep under /etc/nmstate/openshift → None", "/etc/nmstate/openshift/a/b.yml", [{ type: "None" }], false],
  [
    "§5 row 8: user CA bundle → Restart ca-trust then crio",
    "/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt",
    [restart("coreos-update-ca-trust.service"), restart("crio.service")],
    false,
  ],
  [
    "§5 row 9: credential providers → Restart kubelet",
    "/etc/kubernetes/credential-providers/ecr.yaml",
    [restart("kubelet.service")],
    false,
  ],
  [
    "§5 row 10: kubelet crio credential dropin → DaemonReload, Restart kubelet",
    "/etc/systemd/system/kubelet.service.d/40-kubelet-crio-image-credential-provider.conf",
    [{ type: "DaemonReload" }, restart("kubelet.service")],
    false,
  ],
  ["§5 row 11: /etc/iri-registry → Restart iri-registry", "/etc/iri-registry", [restart("iri-registry.service")], false],
  [
    "§5 row 12: load-registry-image.sh → Restart iri-registry",
    "/usr/local/bin/load-registry-image.sh",
    [restart("iri-registry.service")],
    false,
  ],
  [
    "§5 row 13: iri root CA → Restart ca-trust",
    "/etc/pki/ca-trust/source/anchors/iri-root-ca.crt",
    [restart("coreos-update-ca-trust.service")],
    false,
  ],
  ["§5: registries.conf.d drop-in has no policy → Reboot", "/etc/containers/registries.conf.d/99-x.conf", [{ type: "Reboot" }], true],
  ["§11: kubelet-ca.crt in a MachineConfig → Reboot on the NDP path", "/etc/kubernetes/kubelet-ca.crt", [{ type: "Reboot" }], true],
  ["§4.5: any other file → Reboot", "/etc/sysctl.d/99-tuning.conf", [{ type: "Reboot" }], true],
];

describe("default policies (§5), one changed file each", () => {
  it.each(defaultCases)("%s", (_rule, path, actions, drain) => {
    const result = run(base, withFiles({ [path]: "changed\n" }));
    expect(result.actions).toEqual(actions);
    expect(result.reboot).toBe(actions[0]!.type === "Reboot");
    expect(result.drain).toBe(drain);
  });
});

describe("NDP decision procedure (§4)", () => {
  it("§4.3: OS-level changes reboot whatever the files say", () => {
    for (const extra of [
      { kernelArguments: ["nosmt"] },
      { extensions: ["usbguard"] },
      { kernelType: "realtime" },
      { osImageURL: "quay.io/x@sha256:" + "2".repeat(64) },
    ]) {
      expect(run(base, withFiles({ "/etc/containers/policy.json": "x" }, extra)).actions).toEqual([{ type: "Reboot" }]);
    }
  });

  it("§3: kernel type canonicalisation — '' and 'default' are the same; reordered kargs are a change", () => {
    expect(run({ ...base, kernelType: "" }, { ...base, kernelType: "default" }).actions).toEqual([{ type: "None" }]);
    expect(run({ ...base, kernelArguments: ["a", "b"] }, { ...base, kernelArguments: ["b", "a"] }).reboot).toBe(true);
  });

  it("§4.4: nothing relevant changed → None", () => {
    expect(run(base, base)).toMatchObject({ actions: [{ type: "None" }], reboot: false, drain: false, changes: [] });
  });

  it("§4.5: the longest matching policy path wins, and ties go to the earlier entry", () => {
    const policies = mergeClusterPolicies({
      files: [
        { path: "/etc/app", actions: [{ type: "Restart", restart: { serviceName: "app.service" } }] },
        { path: "/etc/app/conf.d", actions: [{ type: "Reload", reload: { serviceName: "app.service" } }] },
      ],
    });
    expect(closestFilePolicy(policies.files, "/etc/app/conf.d/x.conf")?.path).toBe("/etc/app/conf.d");
    expect(closestFilePolicy(policies.files, "/etc/app/other")?.path).toBe("/etc/app");
    expect(
      closestFilePolicy(
        [
          { path: "/etc/a", actions: [] },
          { path: "/etc/a/", actions: [{ type: "Drain" }] },
        ],
        "/etc/a/x",
      )?.actions,
    ).toEqual([{ type: "Drain" }]);
    expect(
      closestFilePolicy(
        [
          { path: "/etc/a", actions: [] },
          { path: "/etc//a", actions: [{ type: "Drain" }] },
        ],
        "/etc/a/x",
      )?.actions,
    ).toEqual([{ type: "Drain" }]);
  });

  it("§4 edge cases: '/' and relative policy paths never match", () => {
    expect(closestFilePolicy([{ path: "/", actions: [] }], "/etc/x")).toBeNull();
    expect(closestFilePolicy([{ path: "etc", actions: [] }], "/etc/x")).toBeNull();
  });

  it("§4.9: None is dropped beside real actions; only Nones become one None; no de-duplication", () => {
    expect(collapseActions([{ type: "None" }, reload("crio.service"), { type: "None" }])).toEqual([reload("crio.service")]);
    expect(collapseActions([{ type: "None" }, { type: "None" }])).toEqual([{ type: "None" }]);
    const two = run(
      base,
      withFiles({ "/etc/containers/policy.json": "x", "/etc/containers/registries.d/a.yaml": "y", "/var/lib/kubelet/config.json": "{}" }),
    );
    expect(two.actions).toEqual([reload("crio.service"), reload("crio.service")]);
  });

  it("§4.8: one reboot-causing file collapses everything to Reboot", () => {
    const result = run(base, withFiles({ "/etc/containers/policy.json": "x", "/etc/motd": "hi" }));
    expect(result.actions).toEqual([{ type: "Reboot" }]);
    expect(result.changes.find((c) => c.name === "/etc/motd")?.decidedBy).toMatch(/no node disruption policy matches/);
    expect(result.changes.find((c) => c.name === "/etc/containers/policy.json")?.actions).toEqual([reload("crio.service")]);
  });

  it("§4.6: unit policies match by exact name; an unmatched unit reboots; the default iri-registry policy applies", () => {
    expect(run(base, { ...base, units: [{ name: "iri-registry.service", contents: "[Unit]\n" }] }).actions).toEqual([
      { type: "DaemonReload" },
      restart("iri-registry.service"),
    ]);
    expect(run(base, { ...base, units: [{ name: "custom.service", contents: "[Unit]\n" }] }).actions).toEqual([{ type: "Reboot" }]);
    const policies = mergeClusterPolicies({
      units: [
        { name: "custom.service", actions: [{ type: "DaemonReload" }, { type: "Restart", restart: { serviceName: "custom.service" } }] },
      ],
    });
    const result = run(
      base,
      { ...base, units: [{ name: "custom.service", contents: "[Unit]\n", dropins: [{ name: "10-x.conf", contents: "[Service]\n" }] }] },
      { policies, policySource: "spec-merged-with-defaults" },
    );
    expect(result.actions).toEqual([{ type: "DaemonReload" }, restart("custom.service")]);
  });

  it("§4.7 / §11: SSH key and password-hash changes use the sshkey policy (default None)", () => {
    const keys = { ...base, users: [{ name: "core", sshAuthorizedKeys: ["ssh-ed25519 BBBB new@example"] }] };
    expect(run(base, keys).actions).toEqual([{ type: "None" }]);
    const hash = { ...base, users: [{ name: "core", sshAuthorizedKeys: ["ssh-ed25519 AAAA core@example"], passwordHash: "$6$x" }] };
    const policies = mergeClusterPolicies({ sshkey: { actions: [{ type: "Drain" }] } });
    expect(run(base, hash, { policies, policySource: "spec-merged-with-defaults" })).toMatchObject({
      actions: [{ type: "Drain" }],
      drain: true,
    });
  });

  it("§4 edge case: only the order of files changed → no action at all", () => {
    const reordered = rendered(base);
    reordered.files = [...reordered.files!].reverse();
    const result = previewDisruption(rendered(base), reordered, defaults);
    expect(result.actions).toEqual([]);
    expect(result.drain).toBe(false);
  });

  it("§4 edge case: a policy with an empty action list matches and adds nothing", () => {
    const policies = mergeClusterPolicies({ files: [{ path: "/etc/quiet.conf", actions: [] }] });
    expect(run(base, withFiles({ "/etc/quiet.conf": "x" }), { policies, policySource: "spec-merged-with-defaults" }).actions).toEqual([]);
  });

  // Why the action list is empty decides the warning: only a pure reorder is "only the order changed".
  const emptyCases: [string, () => Preview, RegExp, RegExp | null][] = [
    [
      "§4 edge case: a policy entry with no actions → the warning names that entry",
      () =>
        run(base, withFiles({ "/etc/quiet.conf": "x" }), {
          policies: mergeClusterPolicies({ files: [{ path: "/etc/quiet.conf", actions: [] }] }),
          policySource: "spec-merged-with-defaults",
        }),
      /policy entry for \/etc\/quiet\.conf has no actions/,
      /order/,
    ],
    [
      "§4 step 7: a status without sshkey → the warning says the status has no sshkey actions",
      () =>
        run(
          base,
          { ...base, users: [{ name: "core", sshAuthorizedKeys: ["ssh-ed25519 BBBB new@example"] }] },
          {
            policies: effectivePolicies({ status: { nodeDisruptionPolicyStatus: { clusterPolicies: { files: [] } } } }).policies,
            policySource: "cluster-status",
          },
        ),
      /status has no sshkey actions/,
      /order/,
    ],
    [
      "§4 edge case: only the order of units changed → the warning says so",
      () => {
        const from = rendered({
          ...base,
          units: [
            { name: "a.service", contents: "A" },
            { name: "b.service", contents: "B" },
          ],
        });
        const to = rendered({
          ...base,
          units: [
            { name: "b.service", contents: "B" },
            { name: "a.service", contents: "A" },
          ],
        });
        return previewDisruption(from, to, defaults);
      },
      /only the order of units changed/,
      null,
    ],
  ];
  it.each(emptyCases)("%s", (_rule, preview, says, doesNotSay) => {
    const result = preview();
    expect(result.actions).toEqual([]);
    expect(result.warnings.join("\n")).toMatch(says);
    if (doesNotSay) expect(result.warnings.join("\n")).not.toMatch(doesNotSay);
  });

  it("§3: removed files are listed before added or changed ones", () => {
    const { "/etc/chrony.conf": _drop, ...rest } = BASE_FILES;
    const result = run(base, { files: { ...rest, "/etc/containers/policy.json": "new" } });
    expect(result.changes.map((c) => [c.change, c.name])).toEqual([
      ["removed", "/etc/chrony.conf"],
      ["changed", "/etc/containers/policy.json"],
    ]);
  });
});

describe("merging policies (§7)", () => {
  it("replaces a default in place and appends new entries; sshkey falls back to None", () => {
    const merged = mergeClusterPolicies({
      files: [
        { path: "/etc/containers/policy.json", actions: [{ type: "Drain" }] },
        { path: "/etc/chrony.conf", actions: [{ type: "Restart", restart: { serviceName: "chronyd.service" } }] },
      ],
      sshkey: { actions: [] },
    });
    expect(merged.files[2]).toEqual({ path: "/etc/containers/policy.json", actions: [{ type: "Drain" }] });
    expect(merged.files.at(-1)?.path).toBe("/etc/chrony.conf");
    expect(merged.files).toHaveLength(DEFAULT_POLICIES.files.length + 1);
    expect(merged.sshkey.actions).toEqual([{ type: "None" }]);
  });

  it("overriding registries.conf replaces Special and with it the safety check", () => {
    const policies = mergeClusterPolicies({
      files: [{ path: "/etc/containers/registries.conf", actions: [{ type: "Reload", reload: { serviceName: "crio.service" } }] }],
    });
    const result = run(base, withFiles({ "/etc/containers/registries.conf": "this is = not [valid" }), {
      policies,
      policySource: "spec-merged-with-defaults",
    });
    expect(result).toMatchObject({ actions: [reload("crio.service")], drain: false });
  });

  it("uses the cluster's status as-is when present, else spec merged with defaults", () => {
    expect(
      effectivePolicies({
        status: { nodeDisruptionPolicyStatus: { clusterPolicies: { files: [], units: [], sshkey: { actions: [{ type: "None" }] } } } },
      }).source,
    ).toBe("cluster-status");
    expect(effectivePolicies({ spec: { nodeDisruptionPolicy: { files: [] } } }).source).toBe("spec-merged-with-defaults");
    expect(effectivePolicies(null).source).toBe("defaults");
  });
});

describe("API validation of policies (§8): what the API refuses is reported, not dropped", () => {
  const status = (files: unknown[], extra: Record<string, unknown> = {}) => ({
    status: { nodeDisruptionPolicyStatus: { clusterPolicies: { files, sshkey: { actions: [{ type: "None" }] }, ...extra } } },
  });
  const spec = (policy: Record<string, unknown>) => ({ spec: { nodeDisruptionPolicy: policy } });
  const invalidCases: [string, unknown, RegExp][] = [
    [
      "§8: Reload requires reload",
      status([{ path: "/etc/chrony.conf", actions: [{ type: "Reload" }] }]),
      /clusterPolicies\.files\[0\]\.actions\[0\] \(path \/etc\/chrony\.conf\): type Reload requires reload\.serviceName/,
    ],
    [
      "§8: Restart requires restart",
      spec({ files: [{ path: "/etc/a", actions: [{ type: "Restart" }] }] }),
      /spec\.nodeDisruptionPolicy\.files\[0\]\.actions\[0\] \(path \/etc\/a\): type Restart requires restart\.serviceName/,
    ],
    [
      "§8: unknown action type",
      status([{ path: "/etc/x.conf", actions: [{ type: "Bogus" }] }]),
      /actions\[0\].*type "Bogus" is not one of/,
    ],
    [
      "§8: reload is forbidden on other types",
      spec({ files: [{ path: "/etc/a", actions: [{ type: "Drain", reload: { serviceName: "crio.service" } }] }] }),
      /reload is only allowed with type Reload/,
    ],
    [
      "§8: Special exists only in the status enum",
      spec({ files: [{ path: "/etc/a", actions: [{ type: "Special" }] }] }),
      /Special exists only in the status/,
    ],
    [
      "§8: a service name must end with a unit type",
      spec({ files: [{ path: "/etc/a", actions: [{ type: "Restart", restart: { serviceName: "serv.ice" } }] }] }),
      /restart\.serviceName: service name "serv\.ice" does not end with a unit type/,
    ],
    [
      "§8: '.service' alone is not a service name",
      spec({ units: [{ name: ".service", actions: [{ type: "None" }] }] }),
      /units\[0\]\.name/,
    ],
    [
      "§8: Reboot must be alone in its list",
      spec({ files: [{ path: "/etc/a", actions: [{ type: "Reboot" }, { type: "Drain" }] }] }),
      /Reboot must be the only action/,
    ],
    ["§8: actions is required", status([{ path: "/etc/a" }]), /files\[0\]\.actions \(path \/etc\/a\): a list of actions is required/],
    [
      "§8: spec files are keyed by path",
      spec({
        files: [
          { path: "/etc/a", actions: [] },
          { path: "/etc/a", actions: [{ type: "Drain" }] },
        ],
      }),
      /files\[1\]: path \/etc\/a is listed twice/,
    ],
  ];
  it.each(invalidCases)("%s", (_rule, machineConfiguration, message) => {
    const { invalid } = effectivePolicies(machineConfiguration);
    expect(invalid.join("\n")).toMatch(message);
  });

  it("§8: valid policies, including the API's own accepted service names, have nothing invalid", () => {
    for (const name of ["a:b_c-d\\.e.swap", "a.b.c.d.e.snapshot", "crio.service"]) {
      expect(
        effectivePolicies(spec({ units: [{ name, actions: [{ type: "Restart", restart: { serviceName: name } }] }] })).invalid,
      ).toEqual([]);
    }
    expect(effectivePolicies(status([{ path: "/etc/empty", actions: [] }], { sshkey: undefined })).invalid).toEqual([]);
    expect(effectivePolicies(spec({ sshkey: { actions: [] } })).invalid).toEqual([]);
  });
});

describe("registries.conf safety (§6)", () => {
  const conf = (body: string) => withFiles({ "/etc/containers/registries.conf": body });
  const oldConf = `unqualified-search-registries = ["registry.access.redhat.com"]\n[[registry]]\nprefix = ""\nlocation = "quay.io/app"\n[[registry.mirror]]\nlocation = "mirror.example.com/app"\npull-from-mirror = "digest-only"\n`;

  it("adding a digest-only (IDMS) mirror is safe: Special without a drain", () => {
    const result = run(
      conf(oldConf),
      conf(`${oldConf}[[registry.mirror]]\nlocation = "mirror2.example.com/app"\npull-from-mirror = "digest-only"\n`),
    );
    expect(result).toMatchObject({ actions: [{ type: "Special" }], drain: false });
  });

  it("with mirror-by-digest-only = true any added mirror is safe", () => {
    const digestOnly = oldConf.replace('location = "quay.io/app"\n', 'location = "quay.io/app"\nmirror-by-digest-only = true\n');
    expect(run(conf(digestOnly), conf(`${digestOnly}[[registry.mirror]]\nlocation = "m3.example.com/app"\n`)).drain).toBe(false);
  });

  it("adding a tag-only (ITMS) mirror, removing a mirror or removing a registry needs a drain", () => {
    const tagOnly = run(
      conf(oldConf),
      conf(`${oldConf}[[registry.mirror]]\nlocation = "mirror2.example.com/app"\npull-from-mirror = "tag-only"\n`),
    );
    expect(tagOnly).toMatchObject({ actions: [{ type: "Special" }], drain: true });
    expect(tagOnly.drainReason).toMatch(/tag-only/);
    expect(run(conf(oldConf), conf(oldConf.replace(/\[\[registry\.mirror\]\][^]*$/, ""))).drain).toBe(true);
    expect(run(conf(oldConf), conf(`unqualified-search-registries = ["registry.access.redhat.com"]\n`)).drainReason).toMatch(/removed/);
  });

  it("appending to unqualified-search-registries is safe; reordering is not", () => {
    expect(
      run(conf(oldConf), conf(oldConf.replace('["registry.access.redhat.com"]', '["registry.access.redhat.com", "docker.io"]'))).drain,
    ).toBe(false);
    expect(
      run(
        conf(oldConf.replace('["registry.access.redhat.com"]', '["a", "b"]')),
        conf(oldConf.replace('["registry.access.redhat.com"]', '["b", "a"]')),
      ).drain,
    ).toBe(true);
  });

  it("a registries.conf that is not valid TOML is an error, not a guess", () => {
    expect(() => run(conf(oldConf), conf("[[registry]\nbroken"))).toThrow(RegistriesConfError);
  });

  // The MCO decodes registries.conf into typed fields: valid TOML with other types cannot be judged.
  const typeCases: [string, string | null, string | null, RegExp][] = [
    [
      "§6: unqualified-search-registries must be an array of strings",
      'unqualified-search-registries = "docker.io"\n',
      oldConf,
      /the old \/etc\/containers\/registries\.conf .*unqualified-search-registries must be an array of strings, not string "docker\.io"/,
    ],
    [
      "§6: registry must be an array of tables",
      oldConf,
      'registry = "docker.io"\n',
      /the new \/etc\/containers\/registries\.conf .*: registry must be an array of tables/,
    ],
    [
      "§6: registry.mirror must be an array of tables",
      oldConf,
      `${oldConf}[[registry]]\nlocation = "n.example.com"\nmirror = "m"\n`,
      /registry\[1\]\.mirror must be an array of tables/,
    ],
    [
      "§6: registry.location must be a string",
      oldConf,
      `${oldConf}[[registry]]\nlocation = 5\nmirror-by-digest-only = true\n`,
      /registry\[1\]\.location must be a string, not number 5/,
    ],
    [
      "§6: mirror-by-digest-only must be a boolean",
      null,
      '[[registry]]\nlocation = "a"\nmirror-by-digest-only = "true"\n',
      /registry\[0\]\.mirror-by-digest-only must be a boolean/,
    ],
    [
      "§6: a mirror's pull-from-mirror must be a string",
      oldConf,
      oldConf.replace('pull-from-mirror = "digest-only"', "pull-from-mirror = 1"),
      /registry\[0\]\.mirror\[0\]\.pull-from-mirror must be a string/,
    ],
  ];
  it.each(typeCases)("%s", (_rule, before, after, message) => {
    let error: unknown;
    try {
      registriesChangeUnsafeReason(before, after);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RegistriesConfError);
    expect((error as Error).message).toMatch(message);
    if (before !== null && after !== null) expect(() => run(conf(before), conf(after))).toThrow(RegistriesConfError);
  });
});

describe("legacy rules (§10): first boot and HyperShift", () => {
  const legacy = { firstBoot: true };
  it("reloads crio for its files, restarts crio for the user CA bundle, reboots for anything else or any unit", () => {
    expect(run(base, withFiles({ "/etc/containers/policy.json": "x" }), legacy)).toMatchObject({
      path: "legacy",
      actions: [reload("crio.service")],
      drain: false,
    });
    expect(
      run(
        base,
        withFiles({ "/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt": "x", "/etc/containers/policy.json": "y" }),
        legacy,
      ).actions,
    ).toEqual([restart("crio.service")]);
    expect(run(base, withFiles({ "/etc/crio/policies/x.json": "x" }), legacy).actions).toEqual([{ type: "Reboot" }]);
    expect(run(base, { ...base, units: [{ name: "iri-registry.service", contents: "x" }] }, legacy).actions).toEqual([{ type: "Reboot" }]);
  });

  const units = (...names: string[]) => ({ ...base, units: names.map((name) => ({ name, contents: `[Unit]\n# ${name}\n` })) });
  const unitCases: [string, ConfigShape, ConfigShape, Action[]][] = [
    [
      "§10 step 2 / §3: reordering units alone sets the units flag → reboot",
      units("a.service", "b.service"),
      units("b.service", "a.service"),
      [{ type: "Reboot" }],
    ],
    [
      "§10 step 2: a changed unit → reboot",
      units("a.service"),
      { ...base, units: [{ name: "a.service", contents: "x" }] },
      [{ type: "Reboot" }],
    ],
    [
      "§10 step 3: same units in the same order → none",
      units("a.service", "b.service"),
      units("a.service", "b.service"),
      [{ type: "None" }],
    ],
  ];
  it.each(unitCases)("%s", (_rule, from, to, actions) => {
    const result = run(from, to, legacy);
    expect(result.actions).toEqual(actions);
    expect(result.reboot).toBe(actions[0]!.type === "Reboot");
    if (result.reboot) expect(result.changes.some((c) => c.kind === "unit" && c.decidedBy.includes("§10 step 2"))).toBe(true);
  });

  it("matches only direct children of directories, and ignores kubelet-ca.crt and SSH keys", () => {
    expect(run(base, withFiles({ "/etc/containers/registries.d/a.yaml": "x" }), legacy).actions).toEqual([reload("crio.service")]);
    expect(run(base, withFiles({ "/etc/containers/registries.d/sub/a.yaml": "x" }), legacy).actions).toEqual([{ type: "Reboot" }]);
    expect(run(base, withFiles({ "/etc/kubernetes/kubelet-ca.crt": "x" }), legacy).actions).toEqual([{ type: "None" }]);
    expect(run(base, { ...base, users: [{ name: "core", sshAuthorizedKeys: ["ssh-ed25519 CCCC"] }] }, legacy).actions).toEqual([
      { type: "None" },
    ]);
  });
});

describe("unreconcilable changes (§2)", () => {
  const cases: [string, ConfigShape][] = [
    ["groups", { ...base, groups: [{ name: "admins" }] }],
    [
      "a user other than core",
      {
        ...base,
        users: [
          { name: "core", sshAuthorizedKeys: ["k"] },
          { name: "alice", sshAuthorizedKeys: ["k"] },
        ],
      },
    ],
    ["core fields other than keys and hash", { ...base, users: [{ name: "core", sshAuthorizedKeys: ["k"], shell: "/bin/zsh" }] }],
    ["storage.directories", { ...base, directories: [{ path: "/var/data" }] }],
    ["added links", { ...base, links: [{ path: "/etc/l", target: "/etc/t" }] }],
    ["disks", { ...base, disks: [{ device: "/dev/sdb" }] }],
    ["append", { files: { ...BASE_FILES, "/etc/hosts": { text: "x", append: true } } }],
    ["fips", { ...base, fips: true }],
  ];
  it.each(cases)("refuses a change to %s, with the reason and no prediction", (_what, to) => {
    const result = run(base, to);
    expect(result.unreconcilable.length).toBeGreaterThan(0);
    expect(result).toMatchObject({ actions: [], reboot: false, drain: false });
  });

  it("accepts disk changes listed in irreconcilableValidationOverrides", () => {
    expect(run(base, { ...base, disks: [{ device: "/dev/sdb" }] }, { storageOverrides: ["Disks"] }).unreconcilable).toEqual([]);
  });
});

describe("image mode (§9)", () => {
  const ocl = (image: string) => ({
    "machineconfiguration.openshift.io/ocl-osimageurl": image,
    "machineconfiguration.openshift.io/original-osimageurl": "quay.io/base@sha256:" + "0".repeat(64),
  });
  it("file changes reuse the image and follow policies; a different built image reboots; leaving image mode warns of a second reboot", () => {
    const a = { ...base, annotations: ocl("registry.example.com/os@sha256:" + "a".repeat(64)) };
    const files = withFiles({ "/etc/containers/policy.json": "x" }, { annotations: a.annotations });
    expect(run(a, files)).toMatchObject({ actions: [reload("crio.service")], imageMode: { newImageBuilt: false } });
    expect(run(a, { ...base, annotations: ocl("registry.example.com/os@sha256:" + "b".repeat(64)) }).reboot).toBe(true);
    expect(run(a, { ...base, kernelArguments: ["nosmt"], annotations: a.annotations }).imageMode?.newImageBuilt).toBe(true);
    expect(run(a, base).warnings.join(" ")).toMatch(/second reboot/);
  });

  // §9 notes are warnings, so they reach the JSON output; leaving image mode builds no image.
  const image = (digest: string) => ocl("registry.example.com/os@sha256:" + digest.repeat(64));
  const imageCases: [string, ConfigShape, ConfigShape, boolean, RegExp, RegExp | null][] = [
    [
      "§9: a file change reuses the image (layer-only)",
      { ...base, annotations: image("a") },
      withFiles({ "/etc/containers/policy.json": "x" }, { annotations: image("a") }),
      false,
      /previous OS image is reused \(layer-only/,
      null,
    ],
    [
      "§9: changed kernel arguments build a new image",
      { ...base, annotations: image("a") },
      { ...base, kernelArguments: ["nosmt"], annotations: image("b") },
      true,
      /a new OS image is built/,
      null,
    ],
    [
      "§9: leaving image mode builds nothing and costs a second reboot",
      { ...base, kernelArguments: ["nosmt"], annotations: image("a") },
      base,
      false,
      /leaving image mode.*second reboot/,
      /new OS image is built|image is reused/,
    ],
    ["§9: the first opt-in builds an image", base, { ...base, annotations: image("a") }, true, /entering image mode/, null],
  ];
  it.each(imageCases)("%s", (_rule, from, to, built, says, doesNotSay) => {
    const result = run(from, to);
    expect(result.imageMode?.newImageBuilt).toBe(built);
    expect(result.warnings).toContain(result.imageMode!.note);
    expect(result.warnings.join("\n")).toMatch(says);
    if (doesNotSay) expect(result.warnings.join("\n")).not.toMatch(doesNotSay);
  });
});

describe("image mode (§9): either annotation, and the base OS image as extractOCLImageFromMachineConfig restores it", () => {
  const OCL = "machineconfiguration.openshift.io/ocl-osimageurl";
  const ORIGINAL = "machineconfiguration.openshift.io/original-osimageurl";
  const built = (d: string) => "registry.example.com/os@sha256:" + d.repeat(64);
  const baseImage = (d: string) => "quay.io/base@sha256:" + d.repeat(64);
  // An image-mode node's config: the MCD put the built image in spec.osImageURL and the base one in
  // the original-osimageurl annotation (embedOCLImageInMachineConfig).
  const embedded = (image: string, original: string): ConfigShape => ({
    ...base,
    osImageURL: image,
    annotations: { [OCL]: image, [ORIGINAL]: original },
  });
  // [rule, from, to, image-mode note or null, newImageBuilt]
  const cases: [string, ConfigShape, ConfigShape, RegExp | null, boolean | null][] = [
    [
      "§9: the original-osimageurl annotation alone marks an image-mode config (leaving image mode)",
      { ...base, annotations: { [ORIGINAL]: baseImage("0") } },
      base,
      /leaving image mode/,
      false,
    ],
    [
      "§9: the ocl-osimageurl annotation alone marks an image-mode config (entering image mode)",
      base,
      { ...base, annotations: { [OCL]: built("a") } },
      /entering image mode/,
      true,
    ],
    [
      "§9: a new base OS image under the same built image is a rebuild (the base is compared, not spec.osImageURL)",
      embedded(built("a"), baseImage("0")),
      embedded(built("a"), baseImage("1")),
      /a new OS image is built/,
      true,
    ],
    [
      "§9: a different built image over the same base is no rebuild: the build compares the base image; the node still reboots for the new image",
      embedded(built("a"), baseImage("0")),
      embedded(built("b"), baseImage("0")),
      /previous OS image is reused/,
      false,
    ],
    ["§9: no annotation on either side is not image mode", base, { ...base, osImageURL: baseImage("1") }, null, null],
  ];
  it.each(cases)("%s", (_rule, from, to, note, newImageBuilt) => {
    const result = run(from, to);
    if (note === null) expect(result.imageMode).toBeNull();
    else {
      expect(result.imageMode?.note).toMatch(note);
      expect(result.imageMode?.newImageBuilt).toBe(newImageBuilt);
    }
  });

  it('§9: the reader restores the base image from original-osimageurl, and "" when only ocl-osimageurl is there', () => {
    expect(rendered(embedded(built("a"), baseImage("0")))).toMatchObject({
      osImageURL: built("a"),
      baseOsImageURL: baseImage("0"),
      oclImage: built("a"),
      imageMode: true,
    });
    expect(rendered({ ...base, annotations: { [OCL]: built("a") } })).toMatchObject({ baseOsImageURL: "", imageMode: true });
    expect(rendered(base)).toMatchObject({ baseOsImageURL: rendered(base).osImageURL, oclImage: null, imageMode: false });
  });
});

describe("empty Ignition objects (§3): {} decodes like an absent field", () => {
  type Doc = MachineConfigDoc;
  const edit = (change: (doc: Doc) => void) => editedConfig(base, change);
  const chrony = (doc: Doc) => doc.spec.config.storage.files.find((f) => f.path === "/etc/chrony.conf")! as Record<string, unknown>;
  const sameCases: [string, (doc: Doc) => void][] = [
    ["§3: contents.verification {}", (doc) => ((chrony(doc).contents as Record<string, unknown>).verification = {})],
    ["§3: user {} and group {}", (doc) => Object.assign(chrony(doc), { user: {}, group: {} })],
    ["§3: user { name: null } (empty once nil is dropped)", (doc) => Object.assign(chrony(doc), { user: { name: null } })],
    [
      "§3: contents {} on a file that has none",
      (doc) => doc.spec.config.storage.files.push({ path: "/etc/empty", mode: 420, contents: {} } as never),
    ],
    [
      "§2: a link with user {} is the same link, not an added one",
      (doc) => ((doc.spec.config.storage as Record<string, unknown>).links = [{ path: "/etc/l", target: "/t", user: {} }]),
    ],
  ];
  it.each(sameCases)("%s is not a change", (rule, change) => {
    const from = rule.includes("contents {}")
      ? edit((doc) => doc.spec.config.storage.files.push({ path: "/etc/empty", mode: 420 } as never))
      : rule.includes("link")
        ? edit((doc) => ((doc.spec.config.storage as Record<string, unknown>).links = [{ target: "/t", path: "/etc/l" }]))
        : readMachineConfig(machineConfigDoc(base));
    const result = previewDisruption(from, edit(change), defaults);
    expect(result).toMatchObject({ actions: [{ type: "None" }], changes: [], unreconcilable: [] });
  });

  it("§3: only empty objects are dropped — arrays and scalars are kept", () => {
    expect(canonical({ a: {}, b: { c: {} }, d: [], e: [{}], f: 0, g: "", h: false, i: null })).toEqual({
      d: [],
      e: [{}],
      f: 0,
      g: "",
      h: false,
    });
    const headers = edit((doc) => ((chrony(doc).contents as Record<string, unknown>).httpHeaders = []));
    expect(diffConfigs(readMachineConfig(machineConfigDoc(base)), headers).fileChanges).toEqual([
      { path: "/etc/chrony.conf", change: "changed" },
    ]);
  });
});

describe("reading manifests as Kubernetes does (YAML 1.1)", () => {
  const spec = (text: string) => {
    const parsed = parseManifest(text);
    if (!parsed.ok) throw new Error(parsed.error);
    return parsed.value as Record<string, unknown>;
  };
  const yamlCases: [string, string, Record<string, unknown>][] = [
    ["YAML 1.1: mode: 0644 is octal 420", "mode: 0644\n", { mode: 420 }],
    ["YAML 1.1: yes and off are booleans", "a: yes\nb: off\n", { a: true, b: false }],
    ["go-yaml v2: timestamps and sexagesimals stay strings", "t: 2024-01-01\nx: 1:20\n", { t: "2024-01-01", x: "1:20" }],
    [
      "JSON input is unaffected",
      '{"mode": 420, "a": "0644", "b": "yes", "c": 1e3, "d": [1.5, -0, "1:20"], "e": null}',
      { mode: 420, a: "0644", b: "yes", c: 1000, d: [1.5, -0, "1:20"], e: null },
    ],
  ];
  it.each(yamlCases)("%s", (_rule, text, value) => {
    expect(spec(text)).toEqual(value);
  });

  it("JSON reads the same under YAML 1.1 as under YAML 1.2", () => {
    const json = JSON.stringify(machineConfigDoc({ files: BASE_FILES, kernelArguments: ["y", "on", "0644", "1:20"] }));
    const yaml12 = (parseAllDocuments(json) as ReturnType<typeof parseAllDocuments> & unknown[])[0]!.toJS();
    expect(spec(json)).toEqual(yaml12);
    expect(spec(json)).toEqual(JSON.parse(json));
  });

  it("every failure to read comes back as an error value, never thrown", () => {
    const bomb = [
      "a: &a [x, x, x, x, x, x, x, x, x, x]",
      "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]",
      "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]",
      "d: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]",
    ].join("\n");
    expect(parseManifest(bomb)).toEqual({ ok: false, error: expect.stringMatching(/Excessive alias count/) });
    expect(parseManifest("a: [unclosed")).toMatchObject({ ok: false, error: expect.stringMatching(/not valid YAML or JSON/) });
    expect(parseManifest("a: 1\n---\nb: 2\n")).toMatchObject({ ok: false, error: expect.stringMatching(/exactly one object/) });
  });
});

describe("file contents", () => {
  it("decodes percent-encoded, base64 and gzip data URLs, and admits what it cannot read", () => {
    expect(decodeContents({ path: "/a", contents: { source: "data:,hello%20world" } }).text).toBe("hello world");
    expect(
      decodeContents({ path: "/a", contents: { source: `data:text/plain;charset=utf-8;base64,${Buffer.from("hi").toString("base64")}` } })
        .text,
    ).toBe("hi");
    const gz = rendered({ files: { "/etc/x": { gzip: "compressed text" } } }).files![0];
    expect(decodeContents(gz).text).toBe("compressed text");
    expect(decodeContents({ path: "/a", contents: { source: "https://example.com/x" } })).toMatchObject({
      text: null,
      note: expect.stringMatching(/remote source/),
    });
  });
});
