/**
 * Generated ClusterVersion, ClusterOperator and admin-gate states on which Fleetskew's reading of the
 * CVO and the simulated CVO were run side by side with the CVO's own Go code (docs/openshift.md §20.6).
 * The Go side stays outside this repository; its answers to these exact cases are kept in
 * cvoCases.answers.jsonl and checked by cvoCases.test.ts and server/simulator/cvoUpstream.test.ts.
 * Change the generator and the answers no longer match: run the CVO again (the method is in §20.6).
 */

export type CvoLine = "4.22" | "4.23";
type Upgradeable = { status: string; reason: string; message: string } | null;

export type UpgradeableCase = {
  id: string;
  kind: "upgradeable";
  release: CvoLine;
  current: string;
  desired: string;
  progressing: boolean;
  overrides: boolean;
  /** As the CVO prints a deleted resource: `kind "namespace/name"`. */
  deletions: string[];
  adminGates: Record<string, string> | null;
  adminAcks: Record<string, string> | null;
  operators: { name: string; upgradeable: Upgradeable }[];
};
export type PreconditionCase = {
  id: string;
  kind: "precondition";
  release: CvoLine;
  desired: string;
  target: string;
  upgradeable: Upgradeable;
  overrides: boolean;
};
export type ConditionalCase = {
  id: string;
  kind: "conditional";
  release: CvoLine;
  acceptRisksReconciled: boolean;
  risks: { name: string; message: string; url: string; applies: "True" | "False" | "Unknown"; appliesMessage: string }[];
  acceptRisks: string[];
};
export type CvoCase = UpgradeableCase | PreconditionCase | ConditionalCase;

/** mulberry32: small, seeded, the same on every machine. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return { chance: (p: number) => next() < p, int, pick: <T>(xs: readonly T[]): T => xs[int(xs.length)]! };
}
type Rng = ReturnType<typeof random>;

const SKEW = (mm: string) =>
  `Upgrades have been disabled because the cluster is using OCP boot image version 4.12.7, which is below the minimum required version 4.13.0. To enable upgrades, please update your boot images or disable boot image skew enforcement by following the documentation at https://docs.redhat.com/en/documentation/openshift_container_platform/${mm}/html/machine_configuration/mco-update-boot-skew-mgmt`;
const DEGRADED = "One or more machine config pools are degraded, please see `oc get mcp` for further details and resolve before upgrading";
const OTHER_OPERATORS: { name: string; reason: string; message: string }[] = [
  { name: "storage", reason: "VSphereOlderVersion", message: "The vSphere CSI driver needs ESXi 7.0.3 or later on every host." },
  {
    name: "kube-apiserver",
    reason: "DeprecatedAPIsInUse",
    message: "Deprecated APIs in use: flowschemas.v1beta3.flowcontrol.apiserver.k8s.io.",
  },
  {
    name: "cloud-credential",
    reason: "MissingUpgradeableAnnotation",
    message:
      "Upgradeable annotation cloudcredential.openshift.io/upgradeable-to on cloudcredential.operator.openshift.io/cluster object needs updating before upgrade.",
  },
  {
    name: "operator-lifecycle-manager",
    reason: "IncompatibleOperatorsInstalled",
    message:
      "ClusterServiceVersions blocking minor version upgrades to 4.24.0 or higher:\n- maxOpenShiftVersion 4.23 in namespace openshift-operators",
  },
  { name: "etcd", reason: "ClusterMemberUpgradeableFailed", message: "etcd member etcd-1 is not healthy." },
];

function version(rng: Rng, line: CvoLine): string {
  if (line === "4.22") return `4.22.${rng.int(12)}`;
  return rng.chance(0.3) ? `5.0.${rng.int(6)}` : `4.23.${rng.int(8)}`;
}

function gates(rng: Rng, current: string): Record<string, string> | null {
  if (rng.chance(0.08)) return null;
  const [major, minor] = current.split(".").map(Number) as [number, number];
  const kinds: (() => [string, string])[] = [
    () => [
      `ack-${major}.${minor}-kube-1.${minor + 13}-api-removals-in-${major}.${minor + 1}`,
      `Kubernetes 1.${minor + 13} and therefore OpenShift ${major}.${minor + 1} remove several APIs which require admin consideration. Please see the knowledge article https://access.redhat.com/articles/${7000000 + rng.int(99999)} for details and instructions.`,
    ],
    () => [`ack-${major}.${minor - 1}-kube-1.${minor + 12}-api-removals-in-${major}.${minor}`, "A gate of the release before."],
    () => [`ack-${major === 4 ? 5 : 4}.${minor}-other-major-gate`, "A gate of the same minor in another major."],
    () => [`ack-${major}.${minor}-empty-value`, ""],
    () => [
      rng.pick([`ack-${major}.x-bad`, "gate-without-version", `ack-${major}${minor}-no-dot`, `ack-${major}.${minor}--double`]),
      "A malformed gate.",
    ],
    () => [`ack-${major}.${minor}-second-gate`, "Acknowledge the second gate."],
  ];
  const out: Record<string, string> = {};
  for (let i = rng.int(4); i > 0; i--) {
    const [k, v] = rng.pick(kinds)();
    out[k] = v;
  }
  return out;
}

function acks(rng: Rng, adminGates: Record<string, string> | null): Record<string, string> | null {
  if (rng.chance(0.08)) return null;
  const out: Record<string, string> = {};
  for (const k of Object.keys(adminGates ?? {})) {
    if (rng.chance(0.45)) out[k] = "true";
    else if (rng.chance(0.15)) out[k] = rng.pick(["yes", "True", ""]);
  }
  if (rng.chance(0.2)) out["ack-4.19-unrelated"] = "true";
  return out;
}

function operators(rng: Rng, mm: string, multiOrder: boolean): UpgradeableCase["operators"] {
  const mco: Upgradeable = rng.chance(0.45)
    ? { status: "False", reason: "ClusterBootImageSkewError", message: SKEW(mm) }
    : rng.chance(0.15)
      ? { status: "False", reason: "DegradedPool", message: DEGRADED }
      : rng.chance(0.7)
        ? { status: "True", reason: "AsExpected", message: "" }
        : null;
  const list: UpgradeableCase["operators"] = [{ name: "machine-config", upgradeable: mco }];
  for (const o of OTHER_OPERATORS)
    if (rng.chance(0.18)) list.push({ name: o.name, upgradeable: { status: "False", reason: o.reason, message: o.message } });
    else if (rng.chance(0.1)) list.push({ name: o.name, upgradeable: { status: "True", reason: "AsExpected", message: "" } });
  // The 4.22 CVO lists operators in its lister's order, which Go's map leaves open: the cases give them sorted.
  return multiOrder ? list : list.sort((a, b) => (a.name < b.name ? -1 : 1));
}

function upgradeableCase(rng: Rng, i: number): UpgradeableCase {
  const release: CvoLine = rng.chance(0.5) ? "4.22" : "4.23";
  const current = version(rng, release);
  const progressing = rng.chance(0.15);
  const [major, minor] = current.split(".").map(Number) as [number, number];
  const adminGates = gates(rng, current);
  return {
    id: `u-${i}`,
    kind: "upgradeable",
    release,
    current,
    desired: progressing ? `${major}.${minor}.${Number(current.split(".")[2]) + 1}` : current,
    progressing,
    overrides: rng.chance(0.15),
    // The 4.22 CVO lists several deletions in Go map order: at most one there.
    deletions: rng.chance(0.1)
      ? Array.from({ length: release === "4.22" ? 1 : 1 + rng.int(2) }, (_, k) => `deployment "openshift-example/old-${k}"`)
      : [],
    adminGates,
    adminAcks: acks(rng, adminGates),
    operators: operators(rng, `${major}.${minor}`, false),
  };
}

function preconditionCase(rng: Rng, i: number): PreconditionCase {
  const release: CvoLine = rng.chance(0.5) ? "4.22" : "4.23";
  const desired = rng.pick(["4.18.9", "4.20.3", "4.21.11", "4.22.3", "4.22.0-rc.1", "4.23.1", "5.0.2", "5.1.0"]);
  const [major, minor] = desired.split(".").map(Number) as [number, number];
  const target = rng.pick([
    `${major}.${minor}.${20 + rng.int(5)}`,
    `${major}.${minor + 1}.${rng.int(4)}`,
    `${major}.${minor + 2}.0`,
    `${major}.${minor + 3}.1`,
    `${major + 1}.0.${rng.int(3)}`,
    `${major + 1}.1.0`,
    `${major + 1}.${minor}.0`,
    `${major}.${Math.max(0, minor - 1)}.5`,
    `${major}.${minor + 1}.0-rc.${rng.int(4)}`,
  ]);
  const upgradeable: Upgradeable = rng.chance(0.5)
    ? rng.pick([
        { status: "False", reason: "RiskNameNotCompatibleWithReasonProperty", message: SKEW(`${major}.${minor}`) },
        {
          status: "False",
          reason: "MultipleReasons",
          message: "Cluster should not be upgraded between minor or major versions for multiple reasons:\n* a\n* b",
        },
        { status: "False", reason: "AdminAckRequired", message: "Acknowledge the gate." },
        { status: "True", reason: "AsExpected", message: "" },
        { status: "Unknown", reason: "EvaluationFailed", message: "could not tell" },
      ])
    : null;
  return { id: `p-${i}`, kind: "precondition", release, desired, target, upgradeable, overrides: rng.chance(0.1) };
}

function conditionalCase(rng: Rng, i: number): ConditionalCase {
  const release: CvoLine = rng.chance(0.5) ? "4.22" : "4.23";
  const names = ["AROBrokenDNSMasq", "SRIOVFailedToConfigureVF", "KubeNodeNotReady", "Risk-with-dash", "HighLatencyEtcd", "NoRunbook"];
  const risks = Array.from({ length: 1 + rng.int(3) }, () => rng.pick(names))
    .filter((n, k, all) => all.indexOf(n) === k)
    .map((name) => ({
      name,
      message: `${name} may affect this cluster.`,
      url: `https://issues.redhat.com/browse/OCPBUGS-${10000 + name.length}`,
      applies: rng.pick(["True", "True", "False", "Unknown"] as const),
      appliesMessage: `evaluated ${name}`,
    }));
  const acceptRisks = risks.filter(() => rng.chance(0.5)).map((r) => r.name);
  if (rng.chance(0.1)) acceptRisks.push("SomeOtherRisk");
  return { id: `c-${i}`, kind: "conditional", release, acceptRisksReconciled: rng.chance(0.75), risks, acceptRisks };
}

/** `count` cases of each kind, the same for the same seed. */
export function generateCvoCases(seed: number, count: number): CvoCase[] {
  const rng = random(seed);
  return [
    ...Array.from({ length: count }, (_, i) => upgradeableCase(rng, i)),
    ...Array.from({ length: count }, (_, i) => preconditionCase(rng, i)),
    ...Array.from({ length: count }, (_, i) => conditionalCase(rng, i)),
  ];
}

/** The seed and size the recorded answers were made for. */
export const RECORDED = { seed: 423, count: 600 } as const;
