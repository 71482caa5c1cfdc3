import { describe, expect, it } from "vitest";
import { previewDisruption, closestFilePolicy, collapseActions, type Preview } from "./engine";
import { DEFAULT_POLICIES, effectivePolicies, mergeClusterPolicies, type Action } from "./policy";
import { BASE_FILES, rendered, defaults, base, withFiles, run, reload, restart } from "./testing";

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
