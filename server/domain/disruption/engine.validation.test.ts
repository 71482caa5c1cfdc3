import { describe, expect, it } from "vitest";
import { effectivePolicies, type Action } from "./policy";
import { RegistriesConfError, registriesChangeUnsafeReason } from "./registries";
import { type ConfigShape, base, withFiles, run, reload, restart } from "./testing";

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
