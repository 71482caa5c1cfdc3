/**
 * Node disruption policies (reference mco-disruption §5, §7, §8): the MCO's defaults at HEAD and
 * how an admin's spec.nodeDisruptionPolicy is merged into the effective cluster policy.
 */
export type Action =
  | { type: "Reboot" }
  | { type: "Drain" }
  | { type: "None" }
  | { type: "DaemonReload" }
  | { type: "Special" }
  | { type: "Reload"; reload: { serviceName: string } }
  | { type: "Restart"; restart: { serviceName: string } };

export type FilePolicy = { path: string; actions: Action[] };
export type UnitPolicy = { name: string; actions: Action[] };
export type ClusterPolicies = { files: FilePolicy[]; units: UnitPolicy[]; sshkey: { actions: Action[] } };

const reload = (serviceName: string): Action => ({ type: "Reload", reload: { serviceName } });
const restart = (serviceName: string): Action => ({ type: "Restart", restart: { serviceName } });

/** apihelpers.go defaultClusterPolicies, in status order. */
export const DEFAULT_POLICIES: ClusterPolicies = {
  files: [
    { path: "/var/lib/kubelet/config.json", actions: [{ type: "None" }] },
    { path: "/etc/machine-config-daemon/no-reboot/containers-gpg.pub", actions: [reload("crio.service")] },
    { path: "/etc/containers/policy.json", actions: [reload("crio.service")] },
    { path: "/etc/containers/registries.conf", actions: [{ type: "Special" }] },
    { path: "/etc/containers/registries.d", actions: [reload("crio.service")] },
    { path: "/etc/crio/policies", actions: [reload("crio.service")] },
    { path: "/etc/nmstate/openshift", actions: [{ type: "None" }] },
    {
      path: "/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt",
      actions: [restart("coreos-update-ca-trust.service"), restart("crio.service")],
    },
    { path: "/etc/kubernetes/credential-providers", actions: [restart("kubelet.service")] },
    {
      path: "/etc/systemd/system/kubelet.service.d/40-kubelet-crio-image-credential-provider.conf",
      actions: [{ type: "DaemonReload" }, restart("kubelet.service")],
    },
    { path: "/etc/iri-registry", actions: [restart("iri-registry.service")] },
    { path: "/usr/local/bin/load-registry-image.sh", actions: [restart("iri-registry.service")] },
    { path: "/etc/pki/ca-trust/source/anchors/iri-root-ca.crt", actions: [restart("coreos-update-ca-trust.service")] },
  ],
  units: [{ name: "iri-registry.service", actions: [{ type: "DaemonReload" }, restart("iri-registry.service")] }],
  sshkey: { actions: [{ type: "None" }] },
};

type LooseAction = { type?: unknown; reload?: { serviceName?: unknown } | null; restart?: { serviceName?: unknown } | null };

/** Normalises one action from an object of unknown shape; null when it is not a valid action. */
export function readAction(value: unknown): Action | null {
  const a = (value ?? {}) as LooseAction;
  switch (a.type) {
    case "Reboot":
    case "Drain":
    case "None":
    case "DaemonReload":
    case "Special":
      return { type: a.type };
    case "Reload":
      return typeof a.reload?.serviceName === "string" ? reload(a.reload.serviceName) : null;
    case "Restart":
      return typeof a.restart?.serviceName === "string" ? restart(a.restart.serviceName) : null;
    default:
      return null;
  }
}

const readActions = (value: unknown, where: string, warnings: string[]): Action[] => {
  if (!Array.isArray(value)) return [];
  return value.flatMap((v, i) => {
    const action = readAction(v);
    if (!action) warnings.push(`${where} action ${i} is not a valid action and was ignored`);
    return action ? [action] : [];
  });
};

/** MergeClusterPolicies: a user entry with the same path/name replaces the default in place; others are appended. */
export function mergeClusterPolicies(spec: unknown, warnings: string[] = []): ClusterPolicies {
  const s = (spec ?? {}) as { files?: unknown; units?: unknown; sshkey?: { actions?: unknown } };
  const files = DEFAULT_POLICIES.files.map((f) => ({ ...f }));
  for (const [i, entry] of (Array.isArray(s.files) ? s.files : []).entries()) {
    const e = entry as { path?: unknown; actions?: unknown };
    if (typeof e?.path !== "string") {
      warnings.push(`spec.nodeDisruptionPolicy.files[${i}] has no path and was ignored`);
      continue;
    }
    const merged = { path: e.path, actions: readActions(e.actions, `files[${i}]`, warnings) };
    const at = files.findIndex((f) => f.path === e.path);
    if (at >= 0) files[at] = merged;
    else files.push(merged);
  }
  const units = DEFAULT_POLICIES.units.map((u) => ({ ...u }));
  for (const [i, entry] of (Array.isArray(s.units) ? s.units : []).entries()) {
    const e = entry as { name?: unknown; actions?: unknown };
    if (typeof e?.name !== "string") {
      warnings.push(`spec.nodeDisruptionPolicy.units[${i}] has no name and was ignored`);
      continue;
    }
    const merged = { name: e.name, actions: readActions(e.actions, `units[${i}]`, warnings) };
    const at = units.findIndex((u) => u.name === e.name);
    if (at >= 0) units[at] = merged;
    else units.push(merged);
  }
  const ssh = readActions(s.sshkey?.actions, "sshkey", warnings);
  return { files, units, sshkey: { actions: ssh.length > 0 ? ssh : [{ type: "None" }] } };
}

/** Reads status.nodeDisruptionPolicyStatus.clusterPolicies as the MCD uses it. */
export function readClusterPolicies(value: unknown, warnings: string[] = []): ClusterPolicies {
  const v = (value ?? {}) as { files?: unknown; units?: unknown; sshkey?: { actions?: unknown } };
  const files = (Array.isArray(v.files) ? v.files : []).flatMap((f, i) =>
    typeof (f as { path?: unknown })?.path === "string"
      ? [
          {
            path: (f as { path: string }).path,
            actions: readActions((f as { actions?: unknown }).actions, `clusterPolicies.files[${i}]`, warnings),
          },
        ]
      : [],
  );
  const units = (Array.isArray(v.units) ? v.units : []).flatMap((u, i) =>
    typeof (u as { name?: unknown })?.name === "string"
      ? [
          {
            name: (u as { name: string }).name,
            actions: readActions((u as { actions?: unknown }).actions, `clusterPolicies.units[${i}]`, warnings),
          },
        ]
      : [],
  );
  return { files, units, sshkey: { actions: readActions(v.sshkey?.actions, "clusterPolicies.sshkey", warnings) } };
}

export type PolicySource = "cluster-status" | "spec-merged-with-defaults" | "defaults";

/**
 * The policy the MCD would use, from a MachineConfiguration object: its status when present
 * (that is what the MCD reads), else its spec merged with the defaults, else the defaults.
 */
export function effectivePolicies(
  machineConfiguration: unknown,
  warnings: string[] = [],
): { policies: ClusterPolicies; source: PolicySource } {
  const mc = (machineConfiguration ?? null) as {
    spec?: { nodeDisruptionPolicy?: unknown };
    status?: { nodeDisruptionPolicyStatus?: { clusterPolicies?: unknown } };
  } | null;
  const status = mc?.status?.nodeDisruptionPolicyStatus?.clusterPolicies;
  if (status) return { policies: readClusterPolicies(status, warnings), source: "cluster-status" };
  if (mc?.spec?.nodeDisruptionPolicy)
    return { policies: mergeClusterPolicies(mc.spec.nodeDisruptionPolicy, warnings), source: "spec-merged-with-defaults" };
  return { policies: DEFAULT_POLICIES, source: "defaults" };
}

export const describeAction = (a: Action): string =>
  a.type === "Reload" ? `Reload ${a.reload.serviceName}` : a.type === "Restart" ? `Restart ${a.restart.serviceName}` : a.type;
