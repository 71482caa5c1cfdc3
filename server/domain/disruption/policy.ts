import { parseOcpVersion } from "../versions";
import { SYSTEMD_UNIT_SUFFIXES } from "./systemdUnits";

/**
 * Node disruption policies (docs/openshift.md §5, §7, §8): the MCO's defaults, release by release, and
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

/** apihelpers.go defaultClusterPolicies at HEAD (release-4.22, release-4.23, main), in status order. */
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

const without = (p: ClusterPolicies, paths: string[], units: string[] = []): ClusterPolicies => ({
  files: p.files.filter((f) => !paths.includes(f.path)),
  units: p.units.filter((u) => !units.includes(u.name)),
  sshkey: p.sshkey,
});

/** Added in release-4.22: the kubelet's credential providers, its CRI-O drop-in, and the internal release image registry. */
const SINCE_4_22 = {
  files: [
    "/etc/kubernetes/credential-providers",
    "/etc/systemd/system/kubelet.service.d/40-kubelet-crio-image-credential-provider.conf",
    "/etc/iri-registry",
    "/usr/local/bin/load-registry-image.sh",
    "/etc/pki/ca-trust/source/anchors/iri-root-ca.crt",
  ],
  units: ["iri-registry.service"],
};

/**
 * `defaultClusterPolicies` as the MCO of `release` compiles it (pkg/apihelpers/apihelpers.go on each
 * release-4.x branch; docs/openshift.md §5): 4.17 has no /etc/crio/policies; 4.18–4.21 lack the
 * entries 4.22 added; 4.16 has only the first four files, matched by exact path, and there the
 * NodeDisruptionPolicy gate is TechPreview, so the daemon uses the legacy rules (`legacy`). A later
 * major, or an unreadable release, gets HEAD's.
 */
export function defaultPoliciesFor(release: string | null | undefined): { policies: ClusterPolicies; legacy: boolean } {
  const v = parseOcpVersion(release);
  if (!v || v.major > 4 || v.minor >= 22) return { policies: DEFAULT_POLICIES, legacy: false };
  if (v.minor >= 18) return { policies: without(DEFAULT_POLICIES, SINCE_4_22.files, SINCE_4_22.units), legacy: false };
  if (v.minor === 17)
    return { policies: without(DEFAULT_POLICIES, [...SINCE_4_22.files, "/etc/crio/policies"], SINCE_4_22.units), legacy: false };
  const first = DEFAULT_POLICIES.files.slice(0, 4);
  return { policies: { files: first, units: [], sshkey: DEFAULT_POLICIES.sshkey }, legacy: true };
}

type LooseAction = { type?: unknown; reload?: { serviceName?: unknown } | null; restart?: { serviceName?: unknown } | null };

/** Where a policy is read from: the spec enum has no `Special`, the status enum has (§8). */
export type PolicyPart = "spec" | "status";

/** NodeDisruptionPolicyServiceName (§8): why a unit or service name is rejected by the API, or null. */
export function serviceNameProblem(name: unknown): string | null {
  if (typeof name !== "string" || name === "") return "a service name is required";
  if (name.length > 255) return `service name ${JSON.stringify(name)} is longer than 255 characters`;
  if (!SYSTEMD_UNIT_SUFFIXES.some((s) => name.endsWith(s)))
    return `service name ${JSON.stringify(name)} does not end with a unit type such as .service`;
  if (!/^[a-zA-Z0-9:._\\-]+\../.test(name))
    return `service name ${JSON.stringify(name)} does not start with a name followed by a unit type`;
  return null;
}

/** NodeDisruptionPolicySpecAction / status action (§8): why an action is rejected by the API, or null. */
export function actionProblem(value: unknown, part: PolicyPart = "status"): string | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "an action must be an object with a type";
  const a = value as LooseAction;
  const types = ["Reboot", "Drain", "Reload", "Restart", "DaemonReload", "None", ...(part === "status" ? ["Special"] : [])];
  if (typeof a.type !== "string" || !types.includes(a.type))
    return `type ${JSON.stringify(a.type ?? null)} is not one of ${types.join(", ")}${part === "spec" && a.type === "Special" ? " (Special exists only in the status)" : ""}`;
  for (const [field, type] of [
    ["reload", "Reload"],
    ["restart", "Restart"],
  ] as const) {
    const given = a[field] !== undefined && a[field] !== null;
    if (a.type === type && !given) return `type ${type} requires ${field}.serviceName`;
    if (a.type !== type && given) return `${field} is only allowed with type ${type}`;
    if (a.type === type) {
      const problem = serviceNameProblem(a[field]?.serviceName);
      if (problem) return `${field}.serviceName: ${problem}`;
    }
  }
  return null;
}

/** Normalises one action from an object of unknown shape; null when the API would reject it (§8). */
export function readAction(value: unknown, part: PolicyPart = "status"): Action | null {
  if (actionProblem(value, part) !== null) return null;
  const a = value as LooseAction & { type: Action["type"] };
  if (a.type === "Reload") return reload(String(a.reload?.serviceName));
  if (a.type === "Restart") return restart(String(a.restart?.serviceName));
  return { type: a.type } as Action;
}

/**
 * Problems the API would refuse (§8), collected so a caller can refuse the whole object rather than
 * act on part of it (the CLI does); what cannot be used is also dropped with a warning.
 */
type Reader = { part: PolicyPart; warnings: string[]; invalid: string[] };

const invalidEntry = (reader: Reader, where: string, problem: string, consequence: string) => {
  reader.invalid.push(`${where}: ${problem}`);
  reader.warnings.push(`${where} ${consequence}: ${problem}`);
};

/** An `actions` list (§8): required, at most 10 entries, Reboot and None only alone, every action valid. */
function readActions(value: unknown, where: string, entry: string, reader: Reader): Action[] {
  const of = entry ? ` (${entry})` : "";
  if (!Array.isArray(value)) {
    invalidEntry(reader, `${where}.actions${of}`, "a list of actions is required", "was read as no actions");
    return [];
  }
  if (value.length > 10) invalidEntry(reader, `${where}.actions${of}`, `${value.length} actions, at most 10 are allowed`, "is not valid");
  for (const alone of ["Reboot", "None"])
    if (value.length > 1 && value.some((v) => (v as LooseAction | null)?.type === alone))
      invalidEntry(reader, `${where}.actions${of}`, `${alone} must be the only action in its list`, "is not valid");
  return value.flatMap((v, i) => {
    const problem = actionProblem(v, reader.part);
    if (problem) {
      invalidEntry(reader, `${where}.actions[${i}]${of}`, problem, "is not a valid action and was ignored");
      return [];
    }
    return [readAction(v, reader.part)!];
  });
}

const SPEC = "spec.nodeDisruptionPolicy";
const STATUS = "status.nodeDisruptionPolicyStatus.clusterPolicies";

type LooseEntry = { path?: unknown; name?: unknown; actions?: unknown } | null | undefined;

/** MergeClusterPolicies: a user entry with the same path/name replaces the default in place; others are appended. */
export function mergeClusterPolicies(
  spec: unknown,
  warnings: string[] = [],
  invalid: string[] = [],
  defaults: ClusterPolicies = DEFAULT_POLICIES,
): ClusterPolicies {
  const reader: Reader = { part: "spec", warnings, invalid };
  const s = (spec ?? {}) as { files?: unknown; units?: unknown; sshkey?: { actions?: unknown } | null };
  const files = defaults.files.map((f) => ({ ...f }));
  const specFiles = Array.isArray(s.files) ? s.files : [];
  if (specFiles.length > 50) invalidEntry(reader, `${SPEC}.files`, `${specFiles.length} entries, at most 50 are allowed`, "is not valid");
  const seenPaths = new Set<string>();
  for (const [i, entry] of specFiles.entries()) {
    const e = entry as LooseEntry;
    if (typeof e?.path !== "string") {
      invalidEntry(reader, `${SPEC}.files[${i}]`, "path is required", "was ignored");
      continue;
    }
    if (seenPaths.has(e.path))
      invalidEntry(reader, `${SPEC}.files[${i}]`, `path ${e.path} is listed twice (the list is keyed by path)`, "is not valid");
    seenPaths.add(e.path);
    const merged = { path: e.path, actions: readActions(e.actions, `${SPEC}.files[${i}]`, `path ${e.path}`, reader) };
    const at = files.findIndex((f) => f.path === e.path);
    if (at >= 0) files[at] = merged;
    else files.push(merged);
  }
  const units = defaults.units.map((u) => ({ ...u }));
  const specUnits = Array.isArray(s.units) ? s.units : [];
  if (specUnits.length > 50) invalidEntry(reader, `${SPEC}.units`, `${specUnits.length} entries, at most 50 are allowed`, "is not valid");
  const seenNames = new Set<string>();
  for (const [i, entry] of specUnits.entries()) {
    const e = entry as LooseEntry;
    const problem = serviceNameProblem(e?.name);
    if (problem) {
      invalidEntry(reader, `${SPEC}.units[${i}].name`, problem, typeof e?.name === "string" ? "is not valid" : "was ignored");
      if (typeof e?.name !== "string") continue;
    }
    const name = e!.name as string;
    if (seenNames.has(name))
      invalidEntry(reader, `${SPEC}.units[${i}]`, `name ${name} is listed twice (the list is keyed by name)`, "is not valid");
    seenNames.add(name);
    const merged = { name, actions: readActions(e!.actions, `${SPEC}.units[${i}]`, `name ${name}`, reader) };
    const at = units.findIndex((u) => u.name === name);
    if (at >= 0) units[at] = merged;
    else units.push(merged);
  }
  const ssh = s.sshkey ? readActions(s.sshkey.actions, `${SPEC}.sshkey`, "", reader) : [];
  return { files, units, sshkey: { actions: ssh.length > 0 ? ssh : [{ type: "None" }] } };
}

/** Reads status.nodeDisruptionPolicyStatus.clusterPolicies as the MCD uses it. */
export function readClusterPolicies(value: unknown, warnings: string[] = [], invalid: string[] = []): ClusterPolicies {
  const reader: Reader = { part: "status", warnings, invalid };
  const v = (value ?? {}) as { files?: unknown; units?: unknown; sshkey?: { actions?: unknown } | null };
  for (const list of ["files", "units"] as const)
    if (Array.isArray(v[list]) && v[list].length > 100)
      invalidEntry(reader, `${STATUS}.${list}`, `${v[list].length} entries, at most 100 are allowed`, "is not valid");
  const files = (Array.isArray(v.files) ? v.files : []).flatMap((f, i) => {
    const e = f as LooseEntry;
    if (typeof e?.path !== "string") {
      invalidEntry(reader, `${STATUS}.files[${i}]`, "path is required", "was ignored");
      return [];
    }
    return [{ path: e.path, actions: readActions(e.actions, `${STATUS}.files[${i}]`, `path ${e.path}`, reader) }];
  });
  const units = (Array.isArray(v.units) ? v.units : []).flatMap((u, i) => {
    const e = u as LooseEntry;
    const problem = serviceNameProblem(e?.name);
    if (problem) {
      invalidEntry(reader, `${STATUS}.units[${i}].name`, problem, typeof e?.name === "string" ? "is not valid" : "was ignored");
      if (typeof e?.name !== "string") return [];
    }
    const name = e!.name as string;
    return [{ name, actions: readActions(e!.actions, `${STATUS}.units[${i}]`, `name ${name}`, reader) }];
  });
  // A status without sshkey is not refused: the MCD then adds no action for SSH changes (§4 step 7).
  const sshkey = v.sshkey ? readActions(v.sshkey.actions, `${STATUS}.sshkey`, "", reader) : [];
  return { files, units, sshkey: { actions: sshkey } };
}

export type PolicySource = "cluster-status" | "spec-merged-with-defaults" | "defaults";

/**
 * §4 step 1 / §12.5: the MCD acts only on a status the operator has caught up with
 * (status.observedGeneration == metadata.generation). A status behind its spec is still what this
 * preview uses (it is the cluster's own answer so far), but a node would not act on it: the MCD
 * re-reads the object every 5 s for up to 2 min and then fails the update, with no fallback to the
 * defaults. A missing observedGeneration counts as 0, as the Go field would decode.
 */
function staleStatusWarning(mc: { metadata?: { generation?: unknown }; status?: { observedGeneration?: unknown } }): string | null {
  const generation = mc.metadata?.generation;
  const observed = mc.status?.observedGeneration ?? 0;
  if (typeof generation !== "number" || typeof observed !== "number" || observed >= generation) return null;
  return (
    `the MachineConfiguration status is stale (status.observedGeneration ${observed} < metadata.generation ${generation}): ` +
    "the operator has not yet merged the latest spec.nodeDisruptionPolicy into it. This preview uses the status as it is; " +
    "a node's daemon waits (re-reading every 5 s, up to 2 min) for the two to match, and if they do not it fails the update " +
    'with "NodeDisruptionPolicyStatus was not ready" instead of falling back to the defaults (§4 step 1, §12.5)'
  );
}

/**
 * The policy the MCD would use, from a MachineConfiguration object: its status when present
 * (that is what the MCD reads), else its spec merged with the defaults of the cluster's `release`
 * (when known; HEAD's otherwise), else those defaults. `legacy`: at that release, without a status,
 * the daemon decides by the legacy rules (4.16 and earlier). `invalid` lists what the API would refuse
 * (§8), each naming its entry; such entries are read leniently (and a warning says how) so a caller
 * that must answer anyway can, but a caller that must not guess should refuse the object.
 */
export function effectivePolicies(
  machineConfiguration: unknown,
  warnings: string[] = [],
  release: string | null = null,
): { policies: ClusterPolicies; source: PolicySource; invalid: string[]; legacy: boolean } {
  const invalid: string[] = [];
  const mc = (machineConfiguration ?? null) as {
    metadata?: { generation?: unknown };
    spec?: { nodeDisruptionPolicy?: unknown };
    status?: { observedGeneration?: unknown; nodeDisruptionPolicyStatus?: { clusterPolicies?: unknown } };
  } | null;
  const status = mc?.status?.nodeDisruptionPolicyStatus?.clusterPolicies;
  if (status) {
    const stale = staleStatusWarning(mc!);
    if (stale) warnings.push(stale);
    return { policies: readClusterPolicies(status, warnings, invalid), source: "cluster-status", invalid, legacy: false };
  }
  const defaults = defaultPoliciesFor(release);
  if (release && defaults.legacy)
    warnings.push(
      `at ${release} the NodeDisruptionPolicy feature is TechPreview, so without a policy status the daemon decides by the legacy rules (§1, §10)`,
    );
  else if (release) warnings.push(`the cluster writes no policy status; the default policies of ${release}'s MCO are used (§5)`);
  if (mc?.spec?.nodeDisruptionPolicy)
    return {
      policies: mergeClusterPolicies(mc.spec.nodeDisruptionPolicy, warnings, invalid, defaults.policies),
      source: "spec-merged-with-defaults",
      invalid,
      legacy: defaults.legacy,
    };
  return { policies: defaults.policies, source: "defaults", invalid, legacy: defaults.legacy };
}

export const describeAction = (a: Action): string =>
  a.type === "Reload" ? `Reload ${a.reload.serviceName}` : a.type === "Restart" ? `Restart ${a.restart.serviceName}` : a.type;
