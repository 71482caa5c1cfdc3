import type { KubeObject } from "./objectStore";

/**
 * The cluster-version operator's Upgradeable condition on ClusterVersion, as the CVO of the release the
 * cluster runs computes it from the objects it reads (docs/openshift.md §20.2, §20.5):
 * - up to 4.22, openshift/cluster-version-operator pkg/cvo/upgradeable.go (`setUpgradeableConditions`
 *   and its checks, in order: overrides, admin acks, cluster operators, deletes in progress, an update
 *   in progress): one failing check becomes `Upgradeable` itself; several keep their own `Upgradeable…`
 *   conditions beside an `Upgradeable` with reason MultipleReasons. 4.22 says "minor or major
 *   versions" where 4.21 and earlier say "minor versions".
 * - from 4.23 (release-4.23, release-5.0 and main), risks (pkg/risk/updating, overrides, deletion,
 *   adminack, upgradeable, in that order, each sorted by name) and pkg/cvo/status.go
 *   `setUpgradeableCondition`: one risk gives its name as the reason when the name fits a condition
 *   reason, else RiskNameNotCompatibleWithReasonProperty, and its message verbatim; several give
 *   MultipleReasons with one bullet per risk; no sub-conditions.
 */
export type UpgradeableCondition = { type: string; status: "False" | "True"; reason: string; message: string };

export type CvoInputs = {
  /** The current version (newest Completed history entry). */
  current: string | null;
  /** ConfigMap admin-gates in openshift-config-managed; null when it is not there to read. */
  adminGates: Record<string, string> | null;
  /** ConfigMap admin-acks in openshift-config; null when it is missing. */
  adminAcks: Record<string, string> | null;
  operators: { name: string; upgradeable: { status: string; reason?: string; message?: string } | null }[];
  /** ClusterVersion Progressing=True: an update is running. */
  progressing: boolean;
  /** ClusterVersion spec.overrides has an unmanaged entry. */
  overrides: boolean;
  /**
   * Failing checks the simulator does not compute (deletes in progress), as a 4.22 ClusterVersion
   * carries them now: kept, and counted among the reasons.
   */
  carried: UpgradeableCondition[];
};

/** The checks this module computes; any other `Upgradeable…` condition is carried over as it is. */
const COMPUTED = new Set([
  "Upgradeable",
  "UpgradeableAdminAckRequired",
  "UpgradeableClusterOperators",
  "UpgradeableClusterVersionOverrides",
  "UpgradeableUpgradeInProgress",
]);

type Line = "4.21" | "4.22" | "4.23";
function lineOf(current: string | null): Line {
  const m = /^(\d+)\.(\d+)/.exec(current ?? "");
  if (!m) return "4.22";
  const [major, minor] = [Number(m[1]), Number(m[2])];
  if (major > 4 || minor >= 23) return "4.23";
  return minor === 22 ? "4.22" : "4.21";
}

const GATE_422 = /^ack-[4-5][.]([0-9]{1,})-[^-]/;
const GATE_423 = /^ack-([4-5][.][0-9]{1,})-[^-]/;
const minorOf = (version: string | null) => /^\d+\.(\d+)/.exec(version ?? "")?.[1] ?? null;
const majorMinorOf = (version: string | null) => /^(\d+\.\d+)/.exec(version ?? "")?.[1] ?? null;

function adminAckCheck({ current, adminGates, adminAcks }: CvoInputs): UpgradeableCondition | null {
  // Without a current version (early start-up) the CVO skips the check; a dump without the
  // ConfigMap says nothing about gates, so the simulator skips it too.
  if (!current || !adminGates) return null;
  if (!adminAcks)
    return {
      type: "UpgradeableAdminAckRequired",
      status: "False",
      reason: "UnableToAccessAdminAcksConfigMap",
      message: "admin-acks configmap not found.",
    };
  const byReason = new Map<string, string[]>();
  const add = (reason: string, message: string) => byReason.set(reason, [...(byReason.get(reason) ?? []), message]);
  for (const [name, value] of Object.entries(adminGates)) {
    const m = GATE_422.exec(name);
    if (!m) {
      add(
        "AdminAckConfigMapGateNameError",
        `admin-gates configmap gate name ${name} has invalid format; must comply with "${GATE_422.source}"`,
      );
      continue;
    }
    if (m[1] !== minorOf(current)) continue;
    if (value === "") add("AdminAckConfigMapGateValueError", `admin-gates configmap gate ${name} must contain a non-empty value.`);
    else if (adminAcks?.[name] !== "true") add("AdminAckRequired", value);
  }
  if (byReason.size === 0) return null;
  const messages = [...byReason.values()].map((m) => [...m].sort().join(" "));
  return byReason.size === 1
    ? { type: "UpgradeableAdminAckRequired", status: "False", reason: [...byReason.keys()][0]!, message: messages[0]! }
    : { type: "UpgradeableAdminAckRequired", status: "False", reason: "MultipleReasons", message: messages.sort().join(" ") };
}

function clusterOperatorsCheck({ operators }: CvoInputs, versions: string): UpgradeableCondition | null {
  const blocking = operators.filter((o) => o.upgradeable?.status === "False");
  if (blocking.length === 0) return null;
  if (blocking.length === 1) {
    const [o] = blocking;
    return {
      type: "UpgradeableClusterOperators",
      status: "False",
      reason: o!.upgradeable!.reason ?? "",
      message: `Cluster operator ${o!.name} should not be upgraded between ${versions}: ${o!.upgradeable!.message ?? ""}`,
    };
  }
  const lines = blocking.map(
    (o) =>
      `Cluster operator ${o.name} should not be upgraded between ${versions}: ${o.upgradeable!.reason ?? ""}: ${o.upgradeable!.message ?? ""}`,
  );
  return {
    type: "UpgradeableClusterOperators",
    status: "False",
    reason: "ClusterOperatorsNotUpgradeable",
    message: `Multiple cluster operators should not be upgraded between ${versions}:\n* ${lines.join("\n* ")}`,
  };
}

/** The 4.22 CVO's checks and how setUpgradeableConditions combines them (4.21 and earlier in their words). */
function checksUpTo422(inputs: CvoInputs, line: Line): UpgradeableCondition[] {
  const versions = line === "4.22" ? "minor or major versions" : "minor versions";
  const overrides: UpgradeableCondition | null = inputs.overrides
    ? {
        type: "UpgradeableClusterVersionOverrides",
        status: "False",
        reason: "ClusterVersionOverridesSet",
        message: `Disabling ownership via cluster version overrides prevents upgrades${line === "4.22" ? " between minor or major versions" : ""}. Please remove overrides before requesting a minor${line === "4.22" ? " or major" : ""} version update.`,
      }
    : null;
  const updating: UpgradeableCondition | null = inputs.progressing
    ? {
        type: "UpgradeableUpgradeInProgress",
        status: "True",
        reason: "UpdateInProgress",
        message: "An update is already in progress and the details are in the Progressing condition",
      }
    : null;
  const carried = inputs.carried.filter((c) => !COMPUTED.has(c.type));
  const failed = [overrides, adminAckCheck(inputs), clusterOperatorsCheck(inputs, versions), ...carried, updating].filter(
    (c): c is UpgradeableCondition => !!c,
  );
  if (failed.length === 0) return [];
  if (failed.length === 1) return [{ ...failed[0]!, type: "Upgradeable", status: "False" }];
  return [
    ...failed,
    {
      type: "Upgradeable",
      status: "False" as const,
      reason: "MultipleReasons",
      message: `Cluster should not be upgraded between ${versions} for multiple reasons: ${failed.map((c) => c.reason).join(",")}\n* ${failed.map((c) => c.message).join("\n* ")}`,
    },
  ].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}

type Risk = { name: string; message: string };

/** The 4.23 CVO's admin-ack risks (pkg/risk/adminack/adminack.go): one per gate of the running major.minor not acknowledged. */
function adminAckRisks({ current, adminGates, adminAcks }: CvoInputs): Risk[] {
  if (!current || !adminGates) return [];
  if (!adminAcks)
    return [
      {
        name: "AdminAckUnknown",
        message: `Failed to retrieve ConfigMap admin-acks from namespace openshift-config: configmap "admin-acks" not found`,
      },
    ];
  const risks: Risk[] = [];
  for (const [gate, value] of Object.entries(adminGates)) {
    const name = `AdminAck-${gate}`;
    const m = GATE_423.exec(gate);
    if (!m) {
      risks.push({
        name,
        message: `admin-gates configmap gate "${gate}" is invalid: admin-gates configmap gate name ${gate} has invalid format; must comply with "${GATE_423.source}"`,
      });
      continue;
    }
    if (m[1] !== majorMinorOf(current)) continue;
    if (value === "") risks.push({ name, message: `admin-gates configmap gate ${gate} must contain a non-empty value.` });
    else if (adminAcks[gate] !== "true") risks.push({ name, message: value });
  }
  return risks.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** A condition reason the 4.23 CVO accepts as it is (pkg/cvo/availableupdates.go `reasonPattern`). */
export const REASON = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;

/** The 4.23 CVO's Upgradeable from its risk sources (pkg/cvo/status.go `setUpgradeableCondition`). */
function risksFrom423(inputs: CvoInputs): UpgradeableCondition[] {
  const byName = (a: Risk, b: Risk) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const risks: Risk[] = [
    ...(inputs.progressing
      ? [{ name: "ClusterVersionUpdating", message: "An update is already in progress and the details are in the Progressing condition." }]
      : []),
    ...(inputs.overrides
      ? [
          {
            name: "ClusterVersionOverrides",
            message:
              "Disabling ownership via cluster version overrides prevents updates between minor or major versions. Please remove overrides before requesting a minor or major version update.",
          },
        ]
      : []),
    ...adminAckRisks(inputs),
    ...inputs.operators
      .filter((o) => o.upgradeable?.status === "False")
      .map((o) => ({ name: `ClusterOperatorUpgradeable-${o.name}`, message: o.upgradeable!.message ?? "" }))
      .sort(byName),
  ];
  if (risks.length === 0) return [];
  if (risks.length === 1) {
    const [r] = risks;
    return [
      {
        type: "Upgradeable",
        status: "False",
        reason: REASON.test(r!.name) ? r!.name : "RiskNameNotCompatibleWithReasonProperty",
        message: r!.message,
      },
    ];
  }
  return [
    {
      type: "Upgradeable",
      status: "False",
      reason: "MultipleReasons",
      message: `Cluster should not be upgraded between minor or major versions for multiple reasons:\n* ${risks.map((r) => r.message).join("\n* ")}`,
    },
  ];
}

/** The Upgradeable conditions ClusterVersion carries, sorted by type; empty when nothing blocks. */
export function cvoUpgradeable(inputs: CvoInputs): UpgradeableCondition[] {
  const line = lineOf(inputs.current);
  return line === "4.23" ? risksFrom423(inputs) : checksUpTo422(inputs, line);
}

/** Whether a ClusterVersion condition is one of the CVO's Upgradeable family (replaced as a whole). */
export const isUpgradeableCondition = (type: string) => type.startsWith("Upgradeable");

type Condition = { type: string; status: string; reason?: string; message?: string };
const status = (o: KubeObject | undefined) =>
  (o?.status ?? {}) as { history?: { state?: string; version?: string }[]; conditions?: Condition[] };
const overridesOf = (o: KubeObject | undefined) =>
  ((o?.spec as { overrides?: { unmanaged?: boolean }[] } | undefined)?.overrides ?? []).some((x) => x?.unmanaged === true);
const data = (o: KubeObject | undefined) => (o?.data ?? {}) as Record<string, string>;

/** Reads what the CVO reads from a cluster's objects. */
export function cvoInputsOf(objects: readonly KubeObject[]): CvoInputs {
  const configMap = (namespace: string, name: string) =>
    objects.find((o) => o.kind === "ConfigMap" && o.metadata.namespace === namespace && o.metadata.name === name);
  const gates = configMap("openshift-config-managed", "admin-gates");
  const acks = configMap("openshift-config", "admin-acks");
  const cvObject = objects.find((o) => o.kind === "ClusterVersion");
  const cv = status(cvObject);
  return {
    progressing: (cv.conditions ?? []).some((c) => c.type === "Progressing" && c.status === "True"),
    overrides: overridesOf(cvObject),
    current: (cv.history ?? []).find((h) => h.state === "Completed")?.version ?? null,
    adminGates: gates ? data(gates) : null,
    adminAcks: acks ? data(acks) : null,
    carried: (cv.conditions ?? [])
      .filter((c) => isUpgradeableCondition(c.type) && !COMPUTED.has(c.type) && c.status === "False")
      .map((c) => ({ type: c.type, status: "False" as const, reason: c.reason ?? "", message: c.message ?? "" })),
    operators: objects
      .filter((o) => o.kind === "ClusterOperator")
      .map((o) => ({
        name: o.metadata.name ?? "",
        upgradeable: (status(o).conditions ?? []).find((c) => c.type === "Upgradeable") ?? null,
      })),
  };
}

/**
 * ClusterVersion's conditions with the Upgradeable family replaced by what the CVO computes now
 * (carried checks included); a condition whose status did not change keeps its transition time.
 */
export function withCvoUpgradeable<C extends { type: string; status: string; lastTransitionTime?: string }>(
  conditions: readonly C[],
  inputs: CvoInputs,
  now: string,
): C[] {
  const kept = conditions.filter((c) => !isUpgradeableCondition(c.type));
  const next = cvoUpgradeable(inputs).map((c) => {
    const old = conditions.find((o) => o.type === c.type);
    return { ...c, lastTransitionTime: old && old.status === c.status ? old.lastTransitionTime : now } as unknown as C;
  });
  return [...kept, ...next];
}

type Semver = { major: bigint; minor: bigint; patch: bigint; pre: string[] };

/** github.com/blang/semver/v4 `Parse` (strict: three numbers without leading zeros, optional -pre and +build). */
function parseSemver(text: string | null | undefined): Semver | null {
  const m =
    /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/.exec(
      text ?? "",
    );
  if (!m) return null;
  const pre = m[4] ? m[4].split(".") : [];
  if (pre.some((p) => /^0\d+$/.test(p))) return null;
  return { major: BigInt(m[1]!), minor: BigInt(m[2]!), patch: BigInt(m[3]!), pre };
}

function compareSemver(a: Semver, b: Semver): number {
  for (const k of ["major", "minor", "patch"] as const) if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1;
  if (!a.pre.length || !b.pre.length) return a.pre.length === b.pre.length ? 0 : a.pre.length ? -1 : 1;
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const [x, y] = [a.pre[i]!, b.pre[i]!];
    if (x === y) continue;
    const [nx, ny] = [/^\d+$/.test(x), /^\d+$/.test(y)];
    if (nx && ny) return BigInt(x) < BigInt(y) ? -1 : 1;
    if (nx !== ny) return nx ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return a.pre.length === b.pre.length ? 0 : a.pre.length < b.pre.length ? -1 : 1;
}

/**
 * The ClusterVersionUpgradeable precondition (pkg/payload/precondition/clusterversion/upgradeable.go
 * `Upgradeable.Run`): with Upgradeable=False on ClusterVersion an update is refused unless the target
 * is not newer than status.desired.version or has the same major and minor (a patch update). A
 * current version that does not parse does not block; a target that does not parse does.
 */
export function minorUpdateBlocked(
  currentDesired: string | null | undefined,
  target: string,
  upgradeable: { status: string } | undefined,
): boolean {
  if (!upgradeable || upgradeable.status !== "False") return false;
  const current = parseSemver(currentDesired);
  if (!current) return false;
  const next = parseSemver(target);
  if (!next) return true;
  const patchOnly = next.major === current.major && next.minor === current.minor;
  return !(compareSemver(next, current) <= 0 || patchOnly);
}

/**
 * The ClusterVersionGiantHop precondition (pkg/payload/precondition/clusterversion/gianthop.go
 * `GiantHop.Run`, the same on release-4.22, release-4.23, release-5.0 and main), measured from
 * status.desired.version: a later major only as 4 → 5.0, and at most one minor beyond (the minor
 * comparison ignores the major). Null when the update may go on; a version that does not parse is
 * left to the other preconditions.
 */
export function giantHopRefusal(currentDesired: string | null | undefined, target: string): { reason: string; message: string } | null {
  const current = parseSemver(currentDesired);
  const next = parseSemver(target);
  if (!current || !next) return null;
  // blang/semver prints a version as it was parsed (pre-release and build kept).
  const [to, from] = [target, currentDesired!];
  if (next.major > current.major) {
    const toFive = next.major === 5n && current.major === 4n;
    if (toFive && next.minor === 0n) return null;
    return {
      reason: "MajorVersionUpdate",
      message: `${to} has a larger major version than the current target ${from} (${next.major} > ${current.major}), and only updates within the current major version${toFive ? " or to 5.0" : ""} are supported.`,
    };
  }
  if (next.minor > current.minor + 1n)
    return {
      reason: "MultipleMinorVersionsUpdate",
      message: `${to} is more than one minor version beyond the current target ${from} (${next.major}.${next.minor} > ${current.major}.(${current.minor}+1)), and only updates within the current minor version or to the next minor version are supported.`,
    };
  return null;
}
