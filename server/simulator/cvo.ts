import type { KubeObject } from "./objectStore";

/**
 * The cluster-version operator's Upgradeable conditions on ClusterVersion, as
 * openshift/cluster-version-operator pkg/cvo/upgradeable.go (release-4.22: `clusterOperatorsUpgradeable`,
 * `clusterAdminAcksCompletedUpgradeable`, `setUpgradeableConditions`) computes them from the objects
 * it reads: admin gates of the current minor that admin-acks does not acknowledge, and cluster
 * operators reporting Upgradeable=False (docs/openshift.md §20.2). One failing check becomes
 * `Upgradeable` itself; several keep their own `Upgradeable…` conditions beside an `Upgradeable` with
 * reason MultipleReasons.
 */
export type UpgradeableCondition = { type: string; status: "False"; reason: string; message: string };

export type CvoInputs = {
  /** The current version (newest Completed history entry). */
  current: string | null;
  /** ConfigMap admin-gates in openshift-config-managed; null when it is not there to read. */
  adminGates: Record<string, string> | null;
  /** ConfigMap admin-acks in openshift-config; null when it is missing. */
  adminAcks: Record<string, string> | null;
  operators: { name: string; upgradeable: { status: string; reason?: string; message?: string } | null }[];
  /**
   * Failing checks the simulator does not compute (cluster version overrides, deletes in progress),
   * as ClusterVersion carries them now: kept, and counted among the reasons.
   */
  carried: UpgradeableCondition[];
};

/** The checks this module computes; any other `Upgradeable…` condition is carried over as it is. */
const COMPUTED = new Set(["Upgradeable", "UpgradeableAdminAckRequired", "UpgradeableClusterOperators"]);

const GATE = /^ack-[4-5][.]([0-9]{1,})-[^-]/;
const minorOf = (version: string | null) => /^\d+\.(\d+)/.exec(version ?? "")?.[1] ?? null;

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
    const m = GATE.exec(name);
    if (!m) {
      add(
        "AdminAckConfigMapGateNameError",
        `admin-gates configmap gate name ${name} has invalid format; must comply with "${GATE.source}".`,
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

function clusterOperatorsCheck({ operators }: CvoInputs): UpgradeableCondition | null {
  const blocking = operators.filter((o) => o.upgradeable?.status === "False");
  if (blocking.length === 0) return null;
  if (blocking.length === 1) {
    const [o] = blocking;
    return {
      type: "UpgradeableClusterOperators",
      status: "False",
      reason: o!.upgradeable!.reason ?? "",
      message: `Cluster operator ${o!.name} cannot be upgraded between minor versions: ${o!.upgradeable!.message ?? ""}`,
    };
  }
  const lines = blocking.map(
    (o) =>
      `Cluster operator ${o.name} cannot be upgraded between minor versions: ${o.upgradeable!.reason ?? ""}: ${o.upgradeable!.message ?? ""}`,
  );
  return {
    type: "UpgradeableClusterOperators",
    status: "False",
    reason: "ClusterOperatorsNotUpgradeable",
    message: `Multiple cluster operators cannot be upgraded between minor versions:\n* ${lines.join("\n* ")}`,
  };
}

/** The Upgradeable conditions ClusterVersion carries, sorted by type; empty when nothing blocks. */
export function cvoUpgradeable(inputs: CvoInputs): UpgradeableCondition[] {
  // In the CVO's order: overrides, admin acks, cluster operators, deletes in progress.
  const overrides = inputs.carried.filter((c) => c.type === "UpgradeableClusterVersionOverrides");
  const others = inputs.carried.filter((c) => c.type !== "UpgradeableClusterVersionOverrides");
  const failed = [...overrides, adminAckCheck(inputs), clusterOperatorsCheck(inputs), ...others].filter(
    (c): c is UpgradeableCondition => !!c,
  );
  if (failed.length === 0) return [];
  if (failed.length === 1) return [{ ...failed[0]!, type: "Upgradeable" }];
  return [
    ...failed,
    {
      type: "Upgradeable",
      status: "False" as const,
      reason: "MultipleReasons",
      message: `Cluster should not be upgraded between minor versions for multiple reasons: ${failed.map((c) => c.reason).join(",")}\n* ${failed.map((c) => c.message).join("\n* ")}`,
    },
  ].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}

/** Whether a ClusterVersion condition is one of the CVO's Upgradeable family (replaced as a whole). */
export const isUpgradeableCondition = (type: string) => type.startsWith("Upgradeable");

type Condition = { type: string; status: string; reason?: string; message?: string };
const status = (o: KubeObject | undefined) =>
  (o?.status ?? {}) as { history?: { state?: string; version?: string }[]; conditions?: Condition[] };
const data = (o: KubeObject | undefined) => (o?.data ?? {}) as Record<string, string>;

/** Reads what the CVO reads from a cluster's objects. */
export function cvoInputsOf(objects: readonly KubeObject[]): CvoInputs {
  const configMap = (namespace: string, name: string) =>
    objects.find((o) => o.kind === "ConfigMap" && o.metadata.namespace === namespace && o.metadata.name === name);
  const gates = configMap("openshift-config-managed", "admin-gates");
  const acks = configMap("openshift-config", "admin-acks");
  const cv = status(objects.find((o) => o.kind === "ClusterVersion"));
  return {
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
