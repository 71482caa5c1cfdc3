import { assessSkew, bareMetalProvisioningOf, oldestBootImage, platformMinor, type SkewAssessment } from "./clusterSkew";
import { bootImagesSupported } from "./platforms";
import { installVersion, MCO_SKEW_LIMITS, UPGRADEABLE_SKEW_REASON, type SkewLimitEntry } from "./skew";
import { RELEASE_LABEL } from "./bundleManifest";
import { conditionOf, type ClusterSnapshot, type Condition } from "./snapshot";
import { compareVersions, parseOcpVersion, parseRhcosBuild, type Version } from "./versions";

/** The most intermediate minor releases a readiness check walks through. */
const MAX_STEPS = 30;

/**
 * Upgrade readiness: can this cluster update to a target release, and if not, what stands in the way.
 * Checks use OpenShift's own signals (reference/anchors.md §4, openshift-api.md §2, §5, §7). Pure and
 * total: any snapshot, any target string gives a result; missing data gives `unknown` with the reason.
 */
export type CheckStatus = "pass" | "warn" | "fail" | "unknown";
export type Evidence = { kind: string; name: string; namespace?: string; field?: string };
export type ReadinessCheck = {
  id: string;
  title: string;
  status: CheckStatus;
  detail: string;
  evidence: Evidence[];
  remediation: string | null;
  /**
   * For a failing Upgradeable condition whose every reason another check names (admin gates, skew,
   * pools): those checks' ids. Absent when the condition has a cause no other check covers.
   */
  causedBy?: string[];
};
/**
 * "invalid": the target is not a version, or the cluster's current version is unknown so no kind can be
 * told (then `Readiness.current` is null). A later major (4.x → 5.y) counts as "minor": the same minor-update
 * gates apply to it.
 */
export type UpdateKind = "z-stream" | "minor" | "multi-minor" | "same" | "downgrade" | "invalid";
export type Readiness = {
  target: string;
  current: string | null;
  updateKind: UpdateKind;
  status: CheckStatus;
  checks: ReadinessCheck[];
  /** Ids of failing checks. */
  blockers: string[];
};

const SEVERITY: Record<CheckStatus, number> = { pass: 0, unknown: 1, warn: 2, fail: 3 };

/** fail > warn > unknown > pass. */
export const worstStatus = (statuses: CheckStatus[]): CheckStatus =>
  statuses.reduce<CheckStatus>((worst, s) => (SEVERITY[s] > SEVERITY[worst] ? s : worst), "pass");

/**
 * The default target is the next minor. Recommended updates (availableUpdates) of current minor + 1 are
 * preferred, highest first, because that is what `oc adm upgrade` and the console offer by default; else
 * the highest conditional (not-recommended) update of that minor, whose risks the readiness then shows;
 * else the minor alone (`4.23`) when the update service lists nothing for it (disconnected, or not yet
 * in the channel). Null when the current version is unknown.
 */
export function defaultTarget(s: ClusterSnapshot): string | null {
  const current = parseOcpVersion(s?.version?.current);
  if (!current) return null;
  const nextMinor = (v: string) => {
    const p = parseOcpVersion(v);
    return !!p && p.major === current.major && p.minor === current.minor + 1;
  };
  const highest = (versions: string[]) =>
    versions
      .filter((v) => typeof v === "string" && nextMinor(v))
      // A final release before its release candidates of the same x.y.z.
      .sort((a, b) => compareVersions(parseOcpVersion(b)!, parseOcpVersion(a)!) || Number(a.includes("-")) - Number(b.includes("-")))[0] ??
    null;
  return (
    highest(s.version?.availableUpdates ?? []) ??
    highest((s.version?.conditionalUpdates ?? []).map((u) => u?.version)) ??
    `${current.major}.${current.minor + 1}`
  );
}

type Target = {
  text: string;
  version: Version | null;
  /** "4.23" names a minor, not one release. */
  minorOnly: boolean;
  label: string;
};

const parseTarget = (target: unknown): Target => {
  const text = typeof target === "string" ? target.trim() : "";
  const version = /^v?\d+\.\d+(\.\d+)?([-+].*)?$/.test(text) ? parseOcpVersion(text) : null;
  const minorOnly = /^v?\d+\.\d+$/.test(text);
  return { text, version, minorOnly, label: version ? `${version.major}.${version.minor}` : text };
};

function updateKindOf(current: Version | null, target: Target): UpdateKind {
  const t = target.version;
  if (!t || !current) return "invalid";
  if (t.major !== current.major) return t.major > current.major ? "minor" : "downgrade";
  if (t.minor === current.minor) {
    if (target.minorOnly) return "z-stream";
    const c = compareVersions(t, current);
    return c === 0 ? "same" : c > 0 ? "z-stream" : "downgrade";
  }
  if (t.minor < current.minor) return "downgrade";
  return t.minor === current.minor + 1 ? "minor" : "multi-minor";
}

const minorOf = (v: Version) => `${v.major}.${v.minor}`;

// Evidence references, named as an admin finds them with `oc get`.
const CV = (condition: string): Evidence => ({ kind: "ClusterVersion", name: "version", field: `status.conditions[${condition}]` });
const CO_MC = (condition: string): Evidence => ({
  kind: "ClusterOperator",
  name: "machine-config",
  field: `status.conditions[${condition}]`,
});
const MC_SKEW: Evidence = { kind: "MachineConfiguration", name: "cluster", field: "status.bootImageSkewEnforcementStatus" };
const CV_HISTORY: Evidence = { kind: "ClusterVersion", name: "version", field: "status.history" };
const INFRA = (field: string): Evidence => ({ kind: "Infrastructure", name: "cluster", field });
const MACHINE_SET = (name: string): Evidence => ({
  kind: "MachineSet",
  name,
  namespace: "openshift-machine-api",
  field: "spec.template.spec.providerSpec.value",
});
const POOL = (name: string, field: string): Evidence => ({ kind: "MachineConfigPool", name, field });

const quote = (text: string | null | undefined) => (text ? `"${text}"` : "(no message)");
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const list = (items: string[]) => items.join(", ");

const problemsOf = (s: ClusterSnapshot, part: string) => (Array.isArray(s.problems) ? s.problems : []).filter((p) => p?.part === part);

/** The read problems of one part of the snapshot, as a sentence; null when it was read. */
function problemOf(s: ClusterSnapshot, part: string): string | null {
  const found = problemsOf(s, part);
  if (found.length === 0) return null;
  return found
    .map((p) => (p.kind === "not-available" ? `${part} is not available: ${p.message}` : `${part} could not be read: ${p.message}`))
    .join("; ");
}

type Draft = Omit<ReadinessCheck, "id" | "title">;
const pass = (detail: string, evidence: Evidence[] = []): Draft => ({ status: "pass", detail, evidence, remediation: null });
const unknown = (detail: string, evidence: Evidence[] = [], remediation: string | null = null): Draft => ({
  status: "unknown",
  detail,
  evidence,
  remediation,
});
const warn = (detail: string, evidence: Evidence[], remediation: string): Draft => ({ status: "warn", detail, evidence, remediation });
const fail = (detail: string, evidence: Evidence[], remediation: string): Draft => ({ status: "fail", detail, evidence, remediation });

/** A pass that rests on a partly unreadable part is only as good as what was read. */
const downgradeOnProblem = (draft: Draft, problem: string | null): Draft =>
  problem && draft.status === "pass" ? { ...draft, status: "unknown", detail: `${draft.detail} But ${problem}.` } : draft;

type Context = {
  s: ClusterSnapshot;
  target: Target;
  current: Version | null;
  currentText: string | null;
  kind: UpdateKind;
  /** Minor and multi-minor updates: the ones Upgradeable=False and admin gates block. */
  minorUpdate: boolean;
  limits: SkewLimitEntry[];
};

const notAnUpdate = (c: Context): string | null => {
  if (c.kind === "invalid")
    return c.current
      ? `"${c.target.text}" is not an OpenShift version`
      : "the cluster's current version is not known, so the update cannot be assessed";
  if (c.kind === "downgrade") return `${c.target.text} is older than the current ${c.currentText}; there is no update to assess`;
  return null;
};

const cvProblem = (s: ClusterSnapshot) => problemOf(s, "ClusterVersion") ?? "ClusterVersion could not be read";

// ---------------------------------------------------------------------------------------------

function targetVersionCheck(c: Context): Draft {
  const evidence = [{ kind: "ClusterVersion", name: "version", field: "status.history" }];
  if (!c.target.version)
    return fail(`"${c.target.text}" is not an OpenShift version.`, [], "Choose a target such as 4.23 (a minor) or 4.22.5 (one release).");
  if (!c.current) return unknown(`The current version is not known: ${cvProblem(c.s)}.`, evidence);
  const from = c.currentText;
  switch (c.kind) {
    case "same":
      return pass(`The cluster already runs ${from}; there is nothing to update.`, evidence);
    case "downgrade":
      return fail(
        `${c.target.text} is older than the current ${from}. OpenShift does not support downgrades.`,
        evidence,
        "Choose a target newer than the current version.",
      );
    case "z-stream":
      return pass(`${c.target.text} is a z-stream update within ${minorOf(c.current)} from ${from}.`, evidence);
    case "minor":
      return pass(
        c.target.version.major !== c.current.major
          ? `${c.target.text} is a major version change from ${from}; the minor-update gates apply.`
          : `${c.target.text} is a minor update from ${from}.`,
        evidence,
      );
    default: {
      const via: string[] = [];
      // Bounded: a target far beyond any release would otherwise list (and assess) every minor between.
      for (let m = c.current.minor + 1; m < c.target.version.minor && via.length < MAX_STEPS; m++) via.push(`${c.current.major}.${m}`);
      return warn(
        `${c.target.text} is ${plural(via.length + 1, "minor update")} away from ${from}: the cluster updates one minor release at a time, through ${list(via)}. ` +
          `Each step needs Upgradeable to be True again, and gates of the intermediate releases (admin-acks, boot-image skew) only show once there.`,
        evidence,
        `Plan the update as separate steps through ${list(via)}; on EUS channels the worker pools can stay paused across the intermediate minor.`,
      );
    }
  }
}

function upgradeableCheck(c: Context): Draft {
  const { s } = c;
  if (!s.version) return unknown(`The ClusterVersion Upgradeable condition is not known: ${cvProblem(s)}.`, [CV("Upgradeable")]);
  const cv = conditionOf(s.version.conditions, "Upgradeable");
  const co = conditionOf(s.machineConfigOperator, "Upgradeable");
  const blocking = [
    cv?.status === "False" ? { who: "ClusterVersion", c: cv, evidence: CV("Upgradeable") } : null,
    co?.status === "False" ? { who: "ClusterOperator machine-config", c: co, evidence: CO_MC("Upgradeable") } : null,
  ].filter((b): b is { who: string; c: Condition; evidence: Evidence } => !!b);
  const evidence = [CV("Upgradeable"), ...(s.machineConfigOperator ? [CO_MC("Upgradeable")] : [])];
  if (blocking.length === 0) {
    if (cv?.status === "Unknown")
      return unknown(`ClusterVersion reports Upgradeable=Unknown (${cv.reason ?? "no reason"}): ${quote(cv.message)}.`, evidence);
    // Recent CVOs remove the condition when nothing blocks (reference §2.4): missing means True.
    return pass(
      cv ? "ClusterVersion reports Upgradeable=True." : "Nothing blocks updates: ClusterVersion has no Upgradeable=False condition.",
      evidence,
    );
  }
  // The CVO folds a single blocking operator's message into its own; say it once.
  const folded = blocking.length === 2 && !!co?.message && !!cv?.message?.includes(co.message);
  const said = (folded ? blocking.slice(0, 1) : blocking)
    .map((b) => `${b.who} reports Upgradeable=False, reason ${b.c.reason ?? "(none)"}: ${quote(b.c.message)}`)
    .join(". ");
  const refused = notAnUpdate(c);
  if (refused)
    return unknown(
      `${said}. Whether it matters is not known: ${refused}.`,
      blocking.map((b) => b.evidence),
    );
  if (!c.minorUpdate)
    return pass(
      `${said}. Upgradeable=False blocks only minor (y-stream) updates, so the ${c.kind === "same" ? "current release" : `z-stream update to ${c.target.text}`} is not blocked; it still blocks the next minor update.`,
      blocking.map((b) => b.evidence),
    );
  // With several causes the CVO says MultipleReasons and keeps each in its own Upgradeable… condition.
  const reasons = new Set([
    ...blocking.map((b) => b.c.reason),
    ...(s.version.conditions ?? []).filter((x) => x.type.startsWith("Upgradeable") && x.status === "False").map((x) => x.reason),
  ]);
  const causes = [...reasons].filter((r): r is string => !!r && !AGGREGATE_REASONS.has(r));
  const named = causes.filter((r) => r in CAUSE_CHECKS);
  const hints = [
    ...new Set(named.map((r) => CAUSE_CHECKS[r]!.hint)),
    ...(named.length < causes.length || causes.length === 0 ? ["Resolve the reason given in the message."] : []),
  ];
  const drafted = fail(
    `${said}. Upgradeable=False blocks minor updates, so the update to ${c.target.text} cannot start until it is True again.`,
    blocking.map((b) => b.evidence),
    `${hints.join(" ")} The condition clears by itself once the cause is gone.`,
  );
  return causes.length > 0 && named.length === causes.length
    ? { ...drafted, causedBy: [...new Set(named.map((r) => CAUSE_CHECKS[r]!.check))] }
    : drafted;
}

/** Reasons that only say "several": the causes are in the CVO's Upgradeable… conditions beside them. */
const AGGREGATE_REASONS = new Set(["MultipleReasons", "ClusterOperatorsNotUpgradeable"]);

/** The check that names each cause of Upgradeable=False the CVO and the MCO report. */
const CAUSE_CHECKS: Record<string, { check: string; hint: string }> = {
  AdminAckRequired: { check: "admin-acks", hint: "Acknowledge the admin gates (see the admin-acks check)." },
  [UPGRADEABLE_SKEW_REASON]: { check: "boot-image-skew", hint: "Resolve the boot-image skew (see the boot-image skew check)." },
  DegradedPool: { check: "pools-degraded", hint: "Fix the degraded pool or interrupted build (see the pool checks)." },
  InterruptedBuild: { check: "pools-degraded", hint: "Fix the degraded pool or interrupted build (see the pool checks)." },
};

function cvConditionCheck(c: Context, type: string, judge: (cond: Condition | null) => Draft): Draft {
  if (!c.s.version) return unknown(`The ClusterVersion ${type} condition is not known: ${cvProblem(c.s)}.`, [CV(type)]);
  return judge(conditionOf(c.s.version.conditions, type));
}

function failingCheck(c: Context): Draft {
  return cvConditionCheck(c, "Failing", (cond) => {
    if (!cond) return unknown("ClusterVersion has no Failing condition, so its health is not known.", [CV("Failing")]);
    if (cond.status === "True")
      return fail(
        `ClusterVersion reports Failing=True (${cond.reason ?? "no reason"}): ${quote(cond.message)}. The cluster cannot fully apply its current release.`,
        [CV("Failing")],
        "Fix what the message names (usually a ClusterOperator that is degraded or not available; see `oc get clusteroperators`) before starting an update.",
      );
    if (cond.status !== "False") return unknown(`ClusterVersion reports Failing=${cond.status}: ${quote(cond.message)}.`, [CV("Failing")]);
    return pass("ClusterVersion reports Failing=False: the current release is fully applied.", [CV("Failing")]);
  });
}

function invalidCheck(c: Context): Draft {
  // Present only when the ClusterVersion spec is invalid (reference §7).
  return cvConditionCheck(c, "Invalid", (cond) =>
    cond?.status === "True"
      ? fail(
          `ClusterVersion reports Invalid=True (${cond.reason ?? "no reason"}): ${quote(cond.message)}. The CVO does not act on an invalid spec.`,
          [CV("Invalid")],
          "Correct ClusterVersion spec (desiredUpdate, channel, upstream, capabilities) as the message says.",
        )
      : pass("ClusterVersion spec is valid.", [CV("Invalid")]),
  );
}

function progressingCheck(c: Context): Draft {
  return cvConditionCheck(c, "Progressing", (cond) => {
    if (!cond)
      return unknown("ClusterVersion has no Progressing condition, so whether an update is running is not known.", [CV("Progressing")]);
    if (cond.status === "True" || c.s.version?.updating) {
      const towards = c.s.version?.desired && c.s.version.desired !== c.currentText ? ` towards ${c.s.version.desired}` : "";
      return warn(
        `An update is already in progress${towards}: ${quote(cond.message)}. Starting another one now changes its target midway.`,
        [CV("Progressing"), { kind: "ClusterVersion", name: "version", field: "spec.desiredUpdate" }],
        "Wait for the running update to finish (Progressing=False) before starting the next one.",
      );
    }
    return pass(`No update is in progress: ${quote(cond.message)}.`, [CV("Progressing")]);
  });
}

function retrievedUpdatesCheck(c: Context): Draft {
  return cvConditionCheck(c, "RetrievedUpdates", (cond) => {
    if (!cond)
      return unknown("ClusterVersion has no RetrievedUpdates condition: the update service has not answered yet.", [
        CV("RetrievedUpdates"),
      ]);
    if (cond.status === "True")
      return pass("The cluster retrieved its update recommendations from the update service.", [CV("RetrievedUpdates")]);
    return warn(
      `The cluster could not retrieve update recommendations (RetrievedUpdates=${cond.status}, ${cond.reason ?? "no reason"}): ${quote(cond.message)}. ` +
        "Without them, known risks of the target (conditional updates) cannot be checked.",
      [CV("RetrievedUpdates"), { kind: "ClusterVersion", name: "version", field: "spec.upstream" }],
      "Check the channel and the update service address (spec.upstream) and its reachability; at disconnected sites, run the OpenShift Update Service and point spec.upstream at it.",
    );
  });
}

function releaseAcceptedCheck(c: Context): Draft {
  return cvConditionCheck(c, "ReleaseAccepted", (cond) => {
    if (!cond)
      return unknown("ClusterVersion has no ReleaseAccepted condition, so whether the release payload loaded is not known.", [
        CV("ReleaseAccepted"),
      ]);
    if (cond.status === "False")
      return fail(
        `The release payload was not accepted (ReleaseAccepted=False, ${cond.reason ?? "no reason"}): ${quote(cond.message)}.`,
        [CV("ReleaseAccepted")],
        "Fix what the message names: a missing or untrusted signature, an image that cannot be pulled (mirror, pull secret), or a failed precondition.",
      );
    if (cond.status !== "True")
      return unknown(`ClusterVersion reports ReleaseAccepted=${cond.status}: ${quote(cond.message)}.`, [CV("ReleaseAccepted")]);
    return pass("The cluster's release payload was loaded and accepted.", [CV("ReleaseAccepted")]);
  });
}

/**
 * Admin gates, as the CVO checks them (openshift/cluster-version-operator pkg/cvo/upgradeable.go,
 * `clusterAdminAcksCompletedUpgradeable`, `checkAdminGate`, `gateApplicableToCurrentVersion`): every key of
 * ConfigMap openshift-config-managed/admin-gates must match `^ack-[4-5][.]([0-9]{1,})-[^-]`
 * (e.g. `ack-4.12-kube-1.26-api-removals-in-4.13`) and carry a description; a gate applies when the minor
 * in its key equals the minor of the current version (newest Completed history entry; the CVO compares
 * only the minor field), and it is acknowledged when openshift-config/admin-acks has `data[key] === "true"`.
 * An unacknowledged gate sets Upgradeable=False (AdminAckRequired), which blocks minor updates only.
 */
const ADMIN_GATE_KEY = /^ack-[4-5][.]([0-9]{1,})-[^-]/;
const GATES = (key?: string): Evidence => ({
  kind: "ConfigMap",
  name: "admin-gates",
  namespace: "openshift-config-managed",
  ...(key ? { field: `data[${key}]` } : {}),
});
const ACKS = (key?: string): Evidence => ({
  kind: "ConfigMap",
  name: "admin-acks",
  namespace: "openshift-config",
  ...(key ? { field: `data[${key}]` } : {}),
});

function adminAcksCheck(c: Context): Draft {
  const refused = notAnUpdate(c);
  if (refused) return unknown(`Admin gates cannot be checked: ${refused}.`, [GATES()]);
  if (!c.minorUpdate) return pass("Admin gates block only minor updates; this z-stream update does not need acknowledgements.", [GATES()]);
  const gates = c.s.adminGates;
  if (!gates || typeof gates !== "object")
    return unknown(
      "ConfigMap admin-gates (openshift-config-managed) could not be read, so required acknowledgements are not known.",
      [GATES()],
      "Check that Fleetskew may read ConfigMaps in openshift-config-managed.",
    );
  const currentMinor = String(c.current!.minor);
  const malformed: string[] = [];
  const empty: string[] = [];
  const applicable: string[] = [];
  for (const [key, value] of Object.entries(gates).sort(([a], [b]) => a.localeCompare(b))) {
    const m = ADMIN_GATE_KEY.exec(key);
    if (!m) {
      malformed.push(key);
      continue;
    }
    if (m[1] !== currentMinor) continue;
    if (!value) empty.push(key);
    else applicable.push(key);
  }
  if (malformed.length || empty.length)
    return fail(
      [
        malformed.length ? `admin-gates has keys the CVO rejects (${list(malformed)}; reason AdminAckConfigMapGateNameError)` : "",
        empty.length ? `admin-gates has gates without a description (${list(empty)}; reason AdminAckConfigMapGateValueError)` : "",
      ]
        .filter(Boolean)
        .join("; ") + ". The CVO then reports Upgradeable=False, which blocks minor updates.",
      [...malformed, ...empty].map((k) => GATES(k)),
      "admin-gates is shipped with the release; report the broken entry to Red Hat support rather than editing it.",
    );
  if (applicable.length === 0) return pass(`No admin gate applies to ${minorOf(c.current!)}.`, [GATES()]);
  const acks = c.s.adminAcks;
  if (!acks || typeof acks !== "object")
    return unknown(
      `${plural(applicable.length, "admin gate")} apply (${list(applicable)}), but ConfigMap admin-acks (openshift-config) could not be read.`,
      [...applicable.map((k) => GATES(k)), ACKS()],
      "Check that Fleetskew may read ConfigMaps in openshift-config.",
    );
  const missing = applicable.filter((k) => acks[k] !== "true");
  const multi = c.kind === "multi-minor" ? " Gates of the intermediate minors appear only once the cluster is there." : "";
  if (missing.length === 0)
    return pass(
      `All ${plural(applicable.length, "admin gate")} for ${minorOf(c.current!)} are acknowledged (${list(applicable)}).${multi}`,
      [...applicable.map((k) => ACKS(k))],
    );
  return fail(
    `${plural(missing.length, "admin gate")} for ${minorOf(c.current!)} ${missing.length === 1 ? "is" : "are"} not acknowledged: ` +
      missing.map((k) => `${k} (${gates[k]})`).join("; ") +
      `. Until acknowledged, ClusterVersion reports Upgradeable=False (AdminAckRequired) and minor updates are blocked.${multi}`,
    missing.flatMap((k) => [GATES(k), ACKS(k)]),
    `After doing what each gate describes, set the key to "true" in ConfigMap admin-acks in openshift-config, e.g. ` +
      `oc -n openshift-config patch cm admin-acks --type=merge -p '{"data":{"${missing[0]}":"true"}}'.`,
  );
}

function poolsDegradedCheck(c: Context): Draft {
  const pools = Array.isArray(c.s.pools) ? c.s.pools : [];
  const problem = problemOf(c.s, "MachineConfigPools");
  if (pools.length === 0)
    return problem
      ? unknown(`Pool health is not known: ${problem}.`)
      : unknown("No MachineConfigPools were found, so pool health is not known.");
  const degraded = pools.filter((p) => p.degraded);
  const interrupted = pools.filter((p) => p.buildInterrupted);
  if (degraded.length || interrupted.length) {
    const parts = [
      ...degraded.map(
        (p) => `pool ${p.name} is degraded (${p.degradedMachineCount} of ${p.machineCount} nodes): ${quote(p.degradedMessage)}`,
      ),
      ...interrupted.map((p) => `pool ${p.name} has an interrupted OS image build (BuildInterrupted=True)`),
    ];
    return fail(
      `${parts.join("; ")}. Nodes of a degraded pool do not take new configuration, and the MCO reports Upgradeable=False (DegradedPool / InterruptedBuild), which blocks minor updates.`,
      [
        ...degraded.map((p) => POOL(p.name, "status.conditions[Degraded]")),
        ...interrupted.map((p) => POOL(p.name, "status.conditions[BuildInterrupted]")),
      ],
      "Find the failing node with `oc get mcp` and `oc get machineconfignodes`, fix the cause in its message (for an interrupted build, start a new build of the MachineOSConfig), and wait for the pool to recover.",
    );
  }
  return downgradeOnProblem(
    pass(
      `None of the ${plural(pools.length, "pool")} is degraded.`,
      pools.map((p) => POOL(p.name, "status.conditions[Degraded]")),
    ),
    problem,
  );
}

function poolsPausedCheck(c: Context): Draft {
  const pools = Array.isArray(c.s.pools) ? c.s.pools : [];
  const problem = problemOf(c.s, "MachineConfigPools");
  if (pools.length === 0) return unknown(`Whether pools are paused is not known: ${problem ?? "no MachineConfigPools were found"}.`);
  const paused = pools.filter((p) => p.paused);
  if (paused.length === 0)
    return downgradeOnProblem(
      pass(
        "No pool is paused.",
        pools.map((p) => POOL(p.name, "spec.paused")),
      ),
      problem,
    );
  const master = paused.find((p) => p.name === "master");
  const others = paused.filter((p) => p.name !== "master").map((p) => p.name);
  const evidence = paused.map((p) => POOL(p.name, "spec.paused"));
  // The MCO waits for the required (master) pool before reporting the new version (pkg/operator/sync.go,
  // syncRequiredMachineConfigPools), so with it paused the update never completes: worse than a warning.
  if (master)
    return fail(
      `The master pool is paused${others.length ? `, and so ${others.length === 1 ? "is" : "are"} ${list(others)}` : ""}. ` +
        "Control-plane nodes will not take the new release's configuration, so the Machine Config Operator never finishes its part and the update stalls.",
      evidence,
      "Unpause the master pool (spec.paused: false) before updating; only worker pools may stay paused (e.g. for an EUS-to-EUS update).",
    );
  return warn(
    `${plural(paused.length, "pool")} ${paused.length === 1 ? "is" : "are"} paused (${list(others)}). Their nodes stay on the old configuration and OS until the pool is unpaused.`,
    evidence,
    "Unpause the pool(s) after the control plane update if you pause on purpose (EUS-to-EUS), or before updating otherwise.",
  );
}

function poolsUpdatingCheck(c: Context): Draft {
  const pools = Array.isArray(c.s.pools) ? c.s.pools : [];
  const problem = problemOf(c.s, "MachineConfigPools");
  if (pools.length === 0) return unknown(`Whether pools are updating is not known: ${problem ?? "no MachineConfigPools were found"}.`);
  // A paused pool reports Updating too; the paused check covers it.
  const updating = pools.filter((p) => p.updating && !p.paused);
  if (updating.length === 0)
    return downgradeOnProblem(
      pass(
        "All pools are up to date.",
        pools.map((p) => POOL(p.name, "status.conditions[Updated]")),
      ),
      problem,
    );
  return warn(
    `${updating.map((p) => `pool ${p.name} is still rolling out a configuration (${p.updatedMachineCount} of ${p.machineCount} nodes updated)`).join("; ")}.`,
    updating.map((p) => POOL(p.name, "status.conditions[Updating]")),
    "Wait for the pools to finish (Updated=True) before starting the update, so nodes are not drained and rebooted twice.",
  );
}

function imageModeCheck(c: Context): Draft {
  const problem = problemOf(c.s, "MachineOSConfigs");
  const pools = Array.isArray(c.s.imageMode) ? c.s.imageMode : [];
  if (pools.length === 0)
    return problem
      ? unknown(`Whether any pool uses image mode is not known: ${problem}.`)
      : pass("No pool uses image mode (on-cluster layering).");
  const ev = (p: { pool: string; build: string | null }): Evidence[] => [
    { kind: "MachineOSConfig", name: p.pool, field: "status.machineOSBuild" },
    ...(p.build ? [{ kind: "MachineOSBuild", name: p.build, field: "status.conditions" }] : []),
  ];
  const broken = pools.filter((p) => p.buildState === "failed" || p.buildState === "interrupted");
  if (broken.length)
    return fail(
      `${broken.map((p) => `the OS image build for pool ${p.pool} (MachineOSBuild ${p.build ?? "?"}) ${p.buildState === "failed" ? "failed" : "was interrupted"}`).join("; ")}. ` +
        "The update needs a new image built for each image-mode pool; its nodes do not move until a build succeeds.",
      broken.flatMap(ev),
      "Read the build job's log (the MachineOSBuild's builder job in openshift-machine-config-operator), fix the Containerfile, push secret or registry, and rebuild.",
    );
  const waiting = pools.filter((p) => p.buildState !== "succeeded");
  if (waiting.length)
    return warn(
      `${waiting.map((p) => (p.buildState === "building" ? `pool ${p.pool} is building an OS image (${p.build ?? "?"})` : `the state of pool ${p.pool}'s OS image build is not known`)).join("; ")}.`,
      waiting.flatMap(ev),
      "Let the build finish and the pool roll it out before starting the update.",
    );
  return pass(
    `Image-mode pools (${list(pools.map((p) => p.pool))}) have a successful build. The update builds a new image for each of them before their nodes update, so the push secret and registry must still work.`,
    pools.flatMap(ev),
  );
}

const BY_HAND_OR_OPT_OUT =
  "update them by hand and then request a manual acknowledgement in Fleetskew (bootImageSkewEnforcement Manual with the oldest boot image). " +
  "Or opt out with bootImageSkewEnforcement mode None, knowing that scaling up may then fail with old boot images.";

/** What to do about a skew block, for this cluster: with managed boot images on, what makes the MCO skip MachineSets is the thing to fix. */
function skewRemediation(s: ClusterSnapshot): string {
  const managedAll = (s.managedMachineSets?.spec ?? s.managedMachineSets?.status) === "All";
  const skipped = managedAll ? (s.machineSets ?? []).filter((m) => m?.mco?.action === "skip") : [];
  if (skipped.length)
    return (
      `Managed boot images are on, but the MCO skips ${skipped.map((m) => `${m.machineSet} (${m.mco.reason})`).join(", ")} and so keeps the install version: ` +
      `fix what makes it skip them so it can update their boot images, or ${BY_HAND_OR_OPT_OUT}`
    );
  return `Update the MachineSets' boot images: turn on managed boot images (MachineConfiguration spec.managedBootImages, MachineSets mode All) or ${BY_HAND_OR_OPT_OUT}`;
}

const recordText = (a: SkewAssessment) =>
  a.enforcement.mode === "None"
    ? "mode None"
    : `${a.enforcement.mode} ${a.enforcement.value?.ocpVersion ?? a.enforcement.value?.rhcosVersion ?? "(no value)"}`;

function skewEvidence(c: Context, a: SkewAssessment | null): Evidence[] {
  const ev: Evidence[] = [CO_MC("Upgradeable"), MC_SKEW];
  if (a?.enforcement.installVersionFallback) ev.push(CV_HISTORY);
  const skipped = (c.s.machineSets ?? []).filter((m) => m?.ifAllManaged?.action === "skip");
  if (a?.enforcement.installVersionFallback) for (const m of skipped) ev.push(MACHINE_SET(m.machineSet));
  return ev;
}

function bootImageSkewCheck(c: Context): Draft {
  const refused = notAnUpdate(c);
  if (refused) return unknown(`Boot-image skew cannot be assessed: ${refused}.`, [CO_MC("Upgradeable"), MC_SKEW]);
  const { s, limits } = c;
  const now = assessSkew(s, c.currentText!, limits);
  const co = conditionOf(s.machineConfigOperator, "Upgradeable");
  const ownBlock = co?.status === "False" && co.reason === UPGRADEABLE_SKEW_REASON ? co : null;
  // At the current release a predicted block means the status was unreadable; trust the ClusterOperator when it says True.
  const predictedNow =
    !ownBlock && now.block && !(now.enforcement.source === "predicted" && co && co.status !== "False") ? now.block : null;
  const blockedNowText = ownBlock
    ? `ClusterOperator machine-config reports Upgradeable=False, reason ${UPGRADEABLE_SKEW_REASON}: ${quote(ownBlock.message)}`
    : predictedNow
      ? `the cluster's boot-image record (${recordText(now)}) is below the limit, so the MCO blocks minor updates with reason ${UPGRADEABLE_SKEW_REASON}: ${quote(predictedNow.message)}` +
        (now.notes.length ? ` (${now.notes.join("; ")})` : "")
      : null;

  if (!c.minorUpdate) {
    const what = c.kind === "same" ? "the current release" : `the z-stream update to ${c.target.text}`;
    return pass(
      blockedNowText
        ? `Boot-image skew blocks only minor updates, so ${what} is not blocked. But ${blockedNowText}. That still blocks the next minor update.`
        : `Boot-image skew blocks only minor updates; ${what} is not affected.`,
      skewEvidence(c, now),
    );
  }

  if (ownBlock)
    return fail(
      `${blockedNowText}. Minor updates are blocked until the boot images are within the limit.`,
      skewEvidence(c, now),
      skewRemediation(s),
    );
  if (predictedNow) {
    const draft = `Predicted: ${blockedNowText}.`;
    return now.enforcement.source === "cluster"
      ? fail(`${draft} Minor updates are blocked until the boot images are within the limit.`, skewEvidence(c, now), skewRemediation(s))
      : unknown(`${draft} The cluster's own skew status could not be read to confirm it.`, skewEvidence(c, now), skewRemediation(s));
  }

  // Releases passed through on the way (multi-minor): a block there stops the path before the target.
  const t = c.target.version!;
  const cur = c.current!;
  if (c.kind === "multi-minor") {
    for (let m = cur.minor + 1; m < t.minor && m <= cur.minor + MAX_STEPS; m++) {
      const via = `${t.major}.${m}`;
      const a = assessSkew(s, `${via}.0`, limits);
      if (a.block)
        return fail(
          `Predicted: once at ${via} on the way to ${c.target.text}, the Machine Config Operator will report Upgradeable=False, reason ${UPGRADEABLE_SKEW_REASON}, ` +
            `with the message ${quote(a.block.message)}. Basis: ${a.enforcement.basis} (${recordText(a)}). That blocks the next step, from ${via}, so ${c.target.text} cannot be reached without action.`,
          skewEvidence(c, a),
          skewRemediation(s),
        );
    }
  }

  const later = assessSkew(s, c.target.text, limits);
  const targetMinor = c.target.label;
  if (later.block)
    return warn(
      `Once at ${targetMinor}, the Machine Config Operator will report Upgradeable=False, reason ${UPGRADEABLE_SKEW_REASON}, with the message ${quote(later.block.message)}. ` +
        `Basis: ${later.enforcement.basis} (${recordText(later)}${later.enforcement.installVersionFallback ? `, the install version from ClusterVersion history` : ""}). ` +
        `This does not stop the update to ${c.target.text}, but it blocks the next minor update after arriving.` +
        (later.notes.length ? ` Note: ${later.notes.join("; ")}.` : ""),
      skewEvidence(c, later),
      skewRemediation(s),
    );
  if (!later.limits) return pass(`${targetMinor} does not enforce boot-image skew (Fleetskew's limits table).`, skewEvidence(c, later));
  if (later.enforcement.mode === "None")
    return pass(`At ${targetMinor} boot-image skew is not enforced: ${later.enforcement.basis}.`, skewEvidence(c, later));
  const verdict = later.verdict;
  const unparseable = verdict && (verdict.outcome === "unparseable" || verdict.outcome === "no-value") ? ` ${verdict.warning}.` : "";
  return pass(
    `At ${targetMinor} the MCO's boot-image record will be ${recordText(later)} (${later.enforcement.basis}), within the minimum ${later.limits.ocpVersion} / RHEL ${later.limits.rhelVersion}.${unparseable}`,
    skewEvidence(c, later),
  );
}

function machineSetsSkippedCheck(c: Context): Draft {
  const problem = problemOf(c.s, "MachineSets");
  const sets = Array.isArray(c.s.machineSets) ? c.s.machineSets : [];
  if (sets.length === 0)
    return problem
      ? unknown(`MachineSets are not known: ${problem}.`)
      : pass("There are no MachineSets in openshift-machine-api, so there are no boot images for the MCO to update.");
  const release = c.target.version ? c.target.text : c.currentText;
  if (!bootImagesSupported(c.s.platform, platformMinor(release)))
    return downgradeOnProblem(
      pass(
        `The MCO does not update MachineSet boot images on ${c.s.platform ?? "this platform"}${release ? ` at ${release}` : ""}; they are updated by hand (see boot-image skew).`,
      ),
      problem,
    );
  const skipped = sets.filter((m) => m?.ifAllManaged?.action === "skip");
  if (skipped.length === 0)
    return downgradeOnProblem(pass(`With managed boot images the MCO would update all ${plural(sets.length, "MachineSet")}.`), problem);
  return warn(
    `The MCO skips ${plural(skipped.length, "MachineSet")} even with managed boot images: ${skipped.map((m) => `${m.machineSet} (${m.ifAllManaged.reason})`).join("; ")}. ` +
      `While any MachineSet is skipped, the MCO keeps the install version ${installVersion(c.s.version?.history)} as the cluster's boot image, which is what skew enforcement compares.`,
    skipped.map((m) => MACHINE_SET(m.machineSet)),
    "Remove what makes the MCO skip each MachineSet (e.g. an owner reference, an AMI chosen by ARN or filters instead of ami.id), or update those boot images by hand and record a manual acknowledgement in Fleetskew.",
  );
}

/** Sets a bundle for `target` pinned (labelled with its release by Fleetskew, see bundles.ts). */
function bundleSetsFor(c: Context): Set<string> {
  const t = c.target.version;
  const sets = Array.isArray(c.s.pinnedImageSets) ? c.s.pinnedImageSets : [];
  return new Set(
    sets
      .filter((set) => {
        const release = parseOcpVersion(set?.labels?.[RELEASE_LABEL]);
        if (!release || !t) return false;
        return c.target.minorOnly ? release.major === t.major && release.minor === t.minor : compareVersions(release, t) === 0;
      })
      .map((set) => set.name),
  );
}

/**
 * Pinned images (reference §5.2, §6): the images of a bundle for the target must be on every node
 * before the update, or the nodes pull them during it (which a disconnected site cannot). Other
 * sets failing or still pulling are worth a look but do not stop the update.
 */
function pinnedImagesCheck(c: Context): Draft {
  const problem = problemOf(c.s, "MachineConfigNodes");
  const nodes = Array.isArray(c.s.nodes) ? c.s.nodes : [];
  const bundle = bundleSetsFor(c);
  const failed: { node: string; set: string; error: string }[] = [];
  const pulling: { node: string; set: string; current: number; desired: number }[] = [];
  let entries = 0;
  for (const n of nodes) {
    for (const p of Array.isArray(n?.pinned) ? n.pinned : []) {
      entries++;
      const desired = p.desiredGeneration ?? 0;
      const current = p.currentGeneration ?? 0;
      if (current >= desired && desired > 0) continue;
      if (p.lastFailedGeneration !== null && p.lastFailedGeneration !== undefined && p.lastFailedGeneration >= desired && p.error)
        failed.push({ node: n.name, set: p.set, error: p.error });
      else if (current < desired) pulling.push({ node: n.name, set: p.set, current, desired });
    }
  }
  const mcn = (node: string, set: string): Evidence => ({ kind: "MachineConfigNode", name: node, field: `status.pinnedImageSets[${set}]` });
  const nodesOf = (xs: { node: string }[]) => plural(new Set(xs.map((x) => x.node)).size, "node");
  const bundleFailed = failed.filter((f) => bundle.has(f.set));
  const bundlePulling = pulling.filter((p) => bundle.has(p.set));
  const describeFailed = (xs: typeof failed) => xs.map((f) => `${f.node}, set ${f.set}: ${quote(f.error)}`).join("; ");
  const describePulling = (xs: typeof pulling) =>
    xs.map((p) => `${p.node}, set ${p.set} (generation ${p.current} of ${p.desired})`).join("; ");
  const fixFailure =
    "Fix the cause on each node (for a disk-space error: the MCO wants twice the images' size plus 16 GiB of allocatable ephemeral storage, so free space or remove images from the set); the MCO then retries.";
  if (bundleFailed.length)
    return fail(
      `Pre-loading the bundle for ${c.target.text} failed on ${nodesOf(bundleFailed)}: ${describeFailed(bundleFailed)}. ` +
        "Those nodes would have to pull the release images during the update, which a disconnected site cannot.",
      bundleFailed.map((f) => mcn(f.node, f.set)),
      fixFailure,
    );
  if (bundlePulling.length)
    return warn(
      `The bundle for ${c.target.text} is still being pulled on ${nodesOf(bundlePulling)}: ${describePulling(bundlePulling)}.`,
      bundlePulling.map((p) => mcn(p.node, p.set)),
      "Wait until every node reports the set's current generation equal to its desired generation.",
    );
  if (failed.length)
    return warn(
      `Pre-loading pinned images failed on ${nodesOf(failed)}: ${describeFailed(failed)}. ` +
        `${bundle.size ? `The bundle for ${c.target.text} is complete; these` : "These"} sets are not part of a bundle for ${c.target.text}, so they do not stop the update, but their images are not on those nodes.`,
      failed.map((f) => mcn(f.node, f.set)),
      fixFailure,
    );
  if (pulling.length)
    return warn(
      `Pinned images are still being pulled on ${nodesOf(pulling)}: ${describePulling(pulling)}.`,
      pulling.map((p) => mcn(p.node, p.set)),
      "Wait until every node reports the set's current generation equal to its desired generation.",
    );
  if (problem)
    // MachineConfigNode is not served before 4.19 outside TechPreview: nothing is pre-loaded that way.
    return problemsOf(c.s, "MachineConfigNodes").every((p) => p.kind === "not-available")
      ? pass(`Pinned-image progress is not reported by this cluster (${problem}).`)
      : unknown(`Pinned-image progress is not known: ${problem}.`);
  if (bundle.size) return pass(`The bundle for ${c.target.text} is pulled and pinned on every node.`);
  return pass(entries ? "Every node has pulled and pinned its pinned image sets." : "No pinned image sets are being pre-loaded.");
}

function conditionalRisksCheck(c: Context): Draft {
  const refused = notAnUpdate(c);
  if (refused) return unknown(`Update recommendations cannot be checked: ${refused}.`, [CV("RetrievedUpdates")]);
  if (c.kind === "same") return pass("The cluster already runs the target; there is no update to recommend.");
  if (!c.s.version) return unknown(`Update recommendations are not known: ${cvProblem(c.s)}.`);
  const t = c.target.version!;
  const matches = (v: string) => {
    if (typeof v !== "string") return false;
    if (!c.target.minorOnly) return v.trim() === c.target.text;
    const p = parseOcpVersion(v);
    return !!p && p.major === t.major && p.minor === t.minor && compareVersions(p, c.current!) > 0;
  };
  const available = (c.s.version.availableUpdates ?? []).filter(matches);
  const conditional = (c.s.version.conditionalUpdates ?? []).filter((u) => matches(u?.version));
  const evAvailable: Evidence = { kind: "ClusterVersion", name: "version", field: "status.availableUpdates" };
  const evConditional: Evidence = { kind: "ClusterVersion", name: "version", field: "status.conditionalUpdates" };
  if (available.length)
    return pass(
      c.target.minorOnly
        ? `The update service recommends ${list(available)} in ${c.target.label}.`
        : `${c.target.text} is a recommended update for this cluster.`,
      [evAvailable],
    );
  if (conditional.length) {
    const risks = conditional.flatMap((u) => (u.risks ?? []).map((r) => ({ version: u.version, ...r })));
    const described = risks.length
      ? risks.map((r) => `${r.name}${c.target.minorOnly ? ` (${r.version})` : ""}: ${r.message}${r.url ? ` (${r.url})` : ""}`).join("; ")
      : "no risk details given";
    return warn(
      `${c.target.minorOnly ? list(conditional.map((u) => u.version)) : c.target.text} ${conditional.length === 1 ? "is" : "are"} offered only as a conditional update with known risks for this cluster: ${described}. ` +
        "It can still be applied after accepting the risks.",
      [evConditional],
      "Read each risk and decide whether it applies; to go ahead, accept it explicitly (oc adm upgrade --to ... --allow-not-recommended), or wait for a release without the risk.",
    );
  }
  const retrieved = conditionOf(c.s.version.conditions, "RetrievedUpdates");
  if (retrieved?.status === "True")
    return warn(
      c.kind === "multi-minor"
        ? `${c.target.text} is not a direct update from ${c.currentText}; the update service only lists the next step, so the path goes through the intermediate minors.`
        : `The update service does not list ${c.target.text} as an update from ${c.currentText} (not in this channel, or not a supported path).`,
      [evAvailable, evConditional],
      "Pick a target the update service lists, or change the channel (spec.channel) to one that contains the target.",
    );
  return unknown(
    `Whether ${c.target.text} is a recommended update is not known: the cluster has not retrieved update recommendations (RetrievedUpdates=${retrieved?.status ?? "missing"}).`,
    [CV("RetrievedUpdates")],
  );
}

/** RHEL major of an OCP 4.x release's RHCOS: 4.13 moved to RHEL 9; null when not known (a later major). */
const rhelOfRelease = (v: Version | null): number | null => (!v || v.major !== 4 ? null : v.minor >= 13 ? 9 : 8);

function rhelMajorChangeCheck(c: Context): Draft {
  const refused = notAnUpdate(c);
  if (refused) return unknown(`The RHEL version change cannot be assessed: ${refused}.`);
  const targetRhel = rhelOfRelease(c.target.version);
  if (!targetRhel) return unknown(`Which RHEL major ${c.target.text} is based on is not known to Fleetskew.`);
  const sets = Array.isArray(c.s.machineSets) ? c.s.machineSets : [];
  if (sets.length === 0)
    return problemOf(c.s, "MachineSets")
      ? unknown(`MachineSet boot images are not known: ${problemOf(c.s, "MachineSets")}.`)
      : pass("There are no MachineSets, so no new nodes boot from a MachineSet boot image.");
  const rhelOf = (m: { ocpVersion: string | null; rhcosBuild: string | null }) =>
    parseRhcosBuild(m.rhcosBuild)?.rhel.major ?? rhelOfRelease(parseOcpVersion(m.ocpVersion));
  const known = sets.map((m) => ({ m, rhel: rhelOf(m) }));
  const older = known.filter((k) => k.rhel !== null && k.rhel < targetRhel);
  const oldest = oldestBootImage(c.s);
  if (older.length)
    return warn(
      `${plural(older.length, "MachineSet")} boot${older.length === 1 ? "s" : ""} from a RHEL ${older[0]!.rhel} based image ` +
        `(${older.map((k) => `${k.m.machineSet}: ${k.m.rhcosBuild ?? k.m.ocpVersion}`).join("; ")}), while ${c.target.text} is RHEL ${targetRhel} based. ` +
        `New nodes boot the old RHEL ${older[0]!.rhel} image first and must upgrade across a RHEL major version on first boot, which is slower and fails more often.`,
      older.map((k) => MACHINE_SET(k.m.machineSet)),
      "Update those MachineSets to a current boot image (managed boot images, or by hand) before relying on scaling after the update.",
    );
  const unknownSets = known.filter((k) => k.rhel === null).map((k) => k.m.machineSet);
  if (unknownSets.length)
    return unknown(
      `The boot image of ${plural(unknownSets.length, "MachineSet")} (${list(unknownSets)}) is not known, so its RHEL version cannot be compared.`,
      unknownSets.map(MACHINE_SET),
    );
  return pass(
    `All MachineSet boot images are RHEL ${targetRhel} based, like ${c.target.text}${oldest ? ` (oldest: ${oldest.rhcosBuild ?? oldest.ocpVersion} on ${oldest.machineSet})` : ""}.`,
  );
}

function singleNodeCheck(c: Context): Draft {
  const problem = problemOf(c.s, "Infrastructure");
  if (c.s.topology === "SingleReplica")
    return warn(
      "This is a single-node cluster: the update reboots the only node, so the API and all workloads are down during each reboot. " +
        "Drains are skipped (there is nowhere to move pods), and the MCO does not enforce boot-image skew on single-node clusters (mode None).",
      [INFRA("status.controlPlaneTopology")],
      "Schedule a maintenance window for the downtime and make sure workloads restart cleanly after a reboot.",
    );
  if (!c.s.topology && problem)
    return unknown(`The control-plane topology is not known: ${problem}.`, [INFRA("status.controlPlaneTopology")]);
  return pass(`The control plane is ${c.s.topology ?? "not single-node"}; nodes are updated one pool at a time with drains.`, [
    INFRA("status.controlPlaneTopology"),
  ]);
}

function bareMetalCheck(c: Context): Draft {
  const problem = problemOf(c.s, "Infrastructure");
  if (c.s.platform === "BareMetal") {
    const provisioning = bareMetalProvisioningOf(c.s);
    const path =
      provisioning.legacyPath === true
        ? `It is on the legacy provisioning path (${provisioning.reason}), so the MCO enforces skew against the install version unless a boot image is acknowledged.`
        : provisioning.legacyPath === false
          ? `It is not on the legacy provisioning path (${provisioning.reason}), so the MCO sets skew enforcement to None.`
          : `Whether it is on the legacy provisioning path is not known (${provisioning.reason}); the MCO then assumes it is and enforces skew against the install version.`;
    return warn(
      `This is a bare-metal cluster: the MCO does not manage boot images here, so new hosts boot the image the provisioning path serves. ${path}`,
      [
        INFRA("status.platformStatus.type"),
        { kind: "Provisioning", name: "provisioning-configuration", field: "spec.provisioningOSDownloadURL" },
      ],
      provisioning.legacyPath === false
        ? "Keep the image the provisioning path serves current: nothing checks its age."
        : "Keep the provisioning path's RHCOS image current, and acknowledge the boot image in Fleetskew so the MCO compares the real one.",
    );
  }
  if (!c.s.platform && problem) return unknown(`The platform is not known: ${problem}.`, [INFRA("status.platformStatus.type")]);
  return pass(`The platform is ${c.s.platform ?? "not bare metal"}.`, [INFRA("status.platformStatus.type")]);
}

const CHECKS: { id: string; title: string; run: (c: Context) => Draft }[] = [
  { id: "target-version", title: "Target version", run: targetVersionCheck },
  { id: "cv-upgradeable", title: "Upgradeable condition", run: upgradeableCheck },
  { id: "cv-failing", title: "Failing condition", run: failingCheck },
  { id: "cv-invalid", title: "ClusterVersion spec", run: invalidCheck },
  { id: "cv-progressing", title: "Update in progress", run: progressingCheck },
  { id: "cv-retrieved-updates", title: "Update recommendations", run: retrievedUpdatesCheck },
  { id: "cv-release-accepted", title: "Release payload", run: releaseAcceptedCheck },
  { id: "admin-acks", title: "Admin gates", run: adminAcksCheck },
  { id: "pools-degraded", title: "Degraded pools", run: poolsDegradedCheck },
  { id: "pools-paused", title: "Paused pools", run: poolsPausedCheck },
  { id: "pools-updating", title: "Pools updating", run: poolsUpdatingCheck },
  { id: "image-mode-builds", title: "Image-mode builds", run: imageModeCheck },
  { id: "boot-image-skew", title: "Boot-image skew", run: bootImageSkewCheck },
  { id: "machinesets-skipped", title: "MachineSets the MCO skips", run: machineSetsSkippedCheck },
  { id: "pinned-images", title: "Pinned images", run: pinnedImagesCheck },
  { id: "conditional-update-risks", title: "Update risks", run: conditionalRisksCheck },
  { id: "rhel-major-change", title: "RHEL major change", run: rhelMajorChangeCheck },
  { id: "single-node", title: "Single-node cluster", run: singleNodeCheck },
  { id: "bare-metal", title: "Bare metal", run: bareMetalCheck },
];

export function evaluateReadiness(s: ClusterSnapshot, target: string, options: { limits?: SkewLimitEntry[] } = {}): Readiness {
  const snapshot = (s && typeof s === "object" ? s : {}) as ClusterSnapshot;
  const t = parseTarget(target);
  const currentText = typeof snapshot.version?.current === "string" ? snapshot.version.current : null;
  const current = parseOcpVersion(currentText);
  const kind = updateKindOf(current, t);
  const context: Context = {
    s: snapshot,
    target: t,
    current,
    currentText: current ? currentText : null,
    kind,
    minorUpdate: kind === "minor" || kind === "multi-minor",
    limits: options.limits ?? MCO_SKEW_LIMITS,
  };
  const checks = CHECKS.map(({ id, title, run }): ReadinessCheck => {
    try {
      return { id, title, ...run(context) };
    } catch (e) {
      // Snapshots come from stored history too; an unexpected shape must not take the whole checklist down.
      return {
        id,
        title,
        status: "unknown",
        detail: `This check could not be evaluated: ${e instanceof Error ? e.message : String(e)}.`,
        evidence: [],
        remediation: null,
      };
    }
  });
  return {
    target: typeof target === "string" ? target : String(target),
    current: currentText,
    updateKind: kind,
    status: worstStatus(checks.map((c) => c.status)),
    checks,
    blockers: checks.filter((c) => c.status === "fail").map((c) => c.id),
  };
}

/**
 * The failing checks that name a cause. Upgradeable=False is often how the cluster reports a cause
 * another check names (admin gates, skew, a degraded pool): then that check is the cause, and the
 * condition is left out; with a cause of its own it stays.
 */
export function blockingCauses(readiness: Readiness | null | undefined): ReadinessCheck[] {
  const failing = (readiness?.checks ?? []).filter((c) => c?.status === "fail");
  const failingIds = new Set(failing.map((c) => c.id));
  return failing.filter((c) => !(c.id === "cv-upgradeable" && c.causedBy?.length && c.causedBy.every((id) => failingIds.has(id))));
}

/** Fleet roll-up: clusters per overall status (no readiness counts as unknown) and the most common failing check. */
export function rollUpReadiness(items: { cluster: string; readiness: Readiness | null }[]): {
  counts: Record<CheckStatus, number>;
  mostCommonBlocker: { id: string; title: string; clusters: number } | null;
} {
  const counts: Record<CheckStatus, number> = { pass: 0, warn: 0, fail: 0, unknown: 0 };
  const blockers = new Map<string, { title: string; clusters: number }>();
  for (const item of items ?? []) {
    const r = item?.readiness;
    const status = r && r.status in counts ? r.status : "unknown";
    counts[status]++;
    // A cluster counts once per failing check id, even if a malformed readiness repeats one.
    const failing = new Map(blockingCauses(r).map((c) => [c.id, c.title]));
    for (const [id, title] of failing) {
      const entry = blockers.get(id) ?? { title, clusters: 0 };
      entry.clusters++;
      blockers.set(id, entry);
    }
  }
  let best: { id: string; title: string; clusters: number } | null = null;
  // Ties go to the alphabetically first id, so the answer does not depend on input order.
  for (const [id, { title, clusters }] of [...blockers].sort(([a], [b]) => a.localeCompare(b)))
    if (!best || clusters > best.clusters) best = { id, title, clusters };
  return { counts, mostCommonBlocker: best };
}
