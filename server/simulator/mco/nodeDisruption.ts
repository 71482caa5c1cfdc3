import { atLeast } from "./version";

/**
 * The operator's node-disruption policy status: its defaults as each release line compiles them
 * (pkg/apihelpers/apihelpers.go `defaultClusterPolicies` on release-4.17 … release-4.22) merged with
 * the admin's spec (`MergeClusterPolicies`). Before 4.17 the NodeDisruptionPolicy feature gate is
 * off by default, and the operator writes no policy status.
 */
type Any = Record<string, any>;
type StatusAction = { type: string; reload?: { serviceName: string }; restart?: { serviceName: string } };
type FileEntry = { path: string; actions: StatusAction[] };
type UnitEntry = { name: string; actions: StatusAction[] };
export type ClusterPolicies = { files: FileEntry[]; units: UnitEntry[]; sshkey: { actions: StatusAction[] } };

const reload = (serviceName: string): StatusAction => ({ type: "Reload", reload: { serviceName } });
const restart = (serviceName: string): StatusAction => ({ type: "Restart", restart: { serviceName } });
const none: StatusAction = { type: "None" };

/** The default policies of the MCO at `release`, in the order its status lists them; null before 4.17. */
export function defaultClusterPolicies(release: string): ClusterPolicies | null {
  if (!atLeast(release, 17)) return null;
  const files: FileEntry[] = [
    { path: "/var/lib/kubelet/config.json", actions: [none] },
    { path: "/etc/machine-config-daemon/no-reboot/containers-gpg.pub", actions: [reload("crio.service")] },
    { path: "/etc/containers/policy.json", actions: [reload("crio.service")] },
    { path: "/etc/containers/registries.conf", actions: [{ type: "Special" }] },
    { path: "/etc/containers/registries.d", actions: [reload("crio.service")] },
  ];
  // constants.CrioPoliciesDir joined the defaults in release-4.18.
  if (atLeast(release, 18)) files.push({ path: "/etc/crio/policies", actions: [reload("crio.service")] });
  files.push(
    { path: "/etc/nmstate/openshift", actions: [none] },
    {
      path: "/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt",
      actions: [restart("coreos-update-ca-trust.service"), restart("crio.service")],
    },
  );
  const units: UnitEntry[] = [];
  // Credential providers, the kubelet's CRI-O credential drop-in and the internal release image registry: release-4.22.
  if (atLeast(release, 22)) {
    files.push(
      { path: "/etc/kubernetes/credential-providers", actions: [restart("kubelet.service")] },
      {
        path: "/etc/systemd/system/kubelet.service.d/40-kubelet-crio-image-credential-provider.conf",
        actions: [{ type: "DaemonReload" }, restart("kubelet.service")],
      },
      { path: "/etc/iri-registry", actions: [restart("iri-registry.service")] },
      { path: "/usr/local/bin/load-registry-image.sh", actions: [restart("iri-registry.service")] },
      { path: "/etc/pki/ca-trust/source/anchors/iri-root-ca.crt", actions: [restart("coreos-update-ca-trust.service")] },
    );
    units.push({ name: "iri-registry.service", actions: [{ type: "DaemonReload" }, restart("iri-registry.service")] });
  }
  return { files, units, sshkey: { actions: [none] } };
}

const specAction = (a: Any): StatusAction =>
  a.type === "Reload"
    ? reload(String(a.reload?.serviceName ?? ""))
    : a.type === "Restart"
      ? restart(String(a.restart?.serviceName ?? ""))
      : { type: String(a.type) };

/** `MergeClusterPolicies`: a spec entry replaces the default of the same path or name in place; others are appended. */
export function mergeClusterPolicies(defaults: ClusterPolicies, spec: Any | undefined): ClusterPolicies {
  const files = defaults.files.map((f) => ({ ...f }));
  for (const entry of (spec?.files ?? []) as Any[]) {
    const merged = { path: String(entry.path), actions: ((entry.actions ?? []) as Any[]).map(specAction) };
    const at = files.findIndex((f) => f.path === merged.path);
    if (at >= 0) files[at] = merged;
    else files.push(merged);
  }
  const units = defaults.units.map((u) => ({ ...u }));
  for (const entry of (spec?.units ?? []) as Any[]) {
    const merged = { name: String(entry.name), actions: ((entry.actions ?? []) as Any[]).map(specAction) };
    const at = units.findIndex((u) => u.name === merged.name);
    if (at >= 0) units[at] = merged;
    else units.push(merged);
  }
  const ssh = ((spec?.sshkey?.actions ?? []) as Any[]).map(specAction);
  return { files, units, sshkey: { actions: ssh.length ? ssh : defaults.sshkey.actions } };
}
