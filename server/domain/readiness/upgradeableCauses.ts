import { cvoReleaseFor, type CvoRelease } from "../cvoRelease";
import { UPGRADEABLE_SKEW_REASON } from "../skew";
import { conditionOf, type Condition } from "../snapshot";
import type { UpdateGateParts } from "./model";

/**
 * What ClusterVersion's Upgradeable=False is made of, read as the CVO of the cluster's release writes
 * it (docs/openshift.md §20.2, §20.5):
 * - the 4.22 CVO (pkg/cvo/upgradeable.go): one failing check becomes `Upgradeable` with that check's
 *   reason (a single operator's own reason, `AdminAckRequired`, …) and message; several keep their
 *   `Upgradeable…` sub-conditions beside `MultipleReasons`, whose message lists every check's message
 *   after "\n* ";
 * - the 4.23 CVO (pkg/cvo/status.go `setUpgradeableCondition`, the same on release-5.0 and main): one
 *   risk gives its name as the reason only when the name fits a condition reason, else
 *   `RiskNameNotCompatibleWithReasonProperty` (every `ClusterOperatorUpgradeable-<name>` and
 *   `AdminAck-<gate>` risk), and the operator's message verbatim; several give `MultipleReasons` and one
 *   "\n* " bullet per risk, with no sub-conditions.
 * So a cause is recognised by its words, not its reason: the MCO's own Upgradeable message, an admin
 * gate's description, the CVO's fixed texts. Reasons still count where the 4.22 CVO passes them on.
 */

export type UpgradeableCause = {
  /** The CVO's words for this cause (one bullet of its message, or the whole message). */
  words: string;
  /** The readiness check that names this cause, when one does. */
  check?: string;
  /** What to do about it, for causes no other check explains. */
  hint: string;
};

export const NAMED_BY_CHECK: Record<string, { check: string; hint: string }> = {
  AdminAckRequired: { check: "admin-acks", hint: "Acknowledge the admin gates (see the admin-acks check)." },
  [UPGRADEABLE_SKEW_REASON]: { check: "boot-image-skew", hint: "Resolve the boot-image skew (see the boot-image skew check)." },
  DegradedPool: { check: "pools-degraded", hint: "Fix the degraded pool or interrupted build (see the pool checks)." },
  InterruptedBuild: { check: "pools-degraded", hint: "Fix the degraded pool or interrupted build (see the pool checks)." },
};

const GENERIC_HINT = "Resolve the reason given in the message (`oc get clusteroperators` shows which operator reports it).";
export const MCO_HINT = "Resolve what the machine-config operator's message names.";

/** Headers the CVO puts before its bullets; they name no cause of their own. */
const HEADERS = [
  /^Cluster should not be upgraded between minor (or major )?versions for multiple reasons:/,
  /^Multiple cluster operators (should not|cannot) be upgraded between minor (or major )?versions:/,
];

/** The CVO's fixed texts for causes no other check names (4.22 and 4.23 wordings). */
const FIXED: { match: RegExp; hint: string }[] = [
  {
    match: /^An update is already in progress and the details are in the Progressing condition/,
    hint: "Wait for the running update to finish (see the update-in-progress check).",
  },
  {
    match: /^Disabling ownership via cluster version overrides prevents (upgrades|updates) between minor or major versions/,
    hint: "Remove the unmanaged entries from ClusterVersion spec.overrides.",
  },
  {
    match: /^Cluster minor or major version upgrades are not allowed while resource deletions are in progress/,
    hint: "Wait for the resource deletions the message names to finish.",
  },
];

/** The words without the "…" a clipped message ends with, for comparing one text with another. */
export const bare = (text: string | null | undefined) => (text ?? "").replace(/…$/, "").trim();

/** Whether `piece` carries `words` (both clipped alike), ignoring texts too short to tell apart. */
function carries(piece: string, words: string | null | undefined): boolean {
  const w = bare(words);
  if (w.length < 8) return false;
  const p = bare(piece);
  return p.includes(w) || (p.length >= 40 && w.includes(p));
}

/**
 * Splits the CVO's messages into one piece per cause, headers dropped, duplicates once; a message
 * that is one piece keeps its condition's reason (the 4.22 CVO passes a single check's reason on).
 */
function piecesOf(conditions: Condition[]): { words: string; reason: string | null }[] {
  const seen = new Set<string>();
  return conditions.flatMap((c) => {
    const parts = (c.message ?? "")
      .split("\n* ")
      .map((p) => p.trim())
      .filter((p) => p && !HEADERS.some((h) => h.test(p)) && !seen.has(p));
    for (const p of parts) seen.add(p);
    return parts.map((words) => ({ words, reason: parts.length === 1 ? c.reason : null }));
  });
}

export type UpgradeableReading = {
  release: CvoRelease;
  /** The failing `Upgradeable` (and, on the 4.22 CVO, its sub-conditions). */
  conditions: Condition[];
  causes: UpgradeableCause[];
};

/** The causes of ClusterVersion Upgradeable=False; null when ClusterVersion does not report it False. */
export function readUpgradeable(s: UpdateGateParts): UpgradeableReading | null {
  const all = s.version?.conditions ?? [];
  const cv = conditionOf(all, "Upgradeable");
  if (cv?.status !== "False") return null;
  const release = cvoReleaseFor(s.version?.current);
  // The 4.22 CVO keeps each check's own condition beside MultipleReasons; a 4.23 cluster has none
  // (its CVO removes them), but a cluster that just updated may still show the old ones until its
  // next status sync: they are read only where the CVO writes them. (A running update's check is
  // written True, yet it is one of the reasons.)
  const subs = release === "4.22" ? all.filter((c) => c.type !== "Upgradeable" && c.type.startsWith("Upgradeable")) : [];
  const conditions = [cv, ...subs];
  const mco = conditionOf(s.machineConfigOperator, "Upgradeable");
  const mcoFailing = mco?.status === "False" ? mco : null;
  const gates = s.adminGates && typeof s.adminGates === "object" ? Object.entries(s.adminGates) : [];

  const pieces = piecesOf(subs.length ? subs : [cv]);
  const causes = pieces.map(({ words, reason }): UpgradeableCause => {
    if (mcoFailing && carries(words, mcoFailing.message)) {
      const named = mcoFailing.reason ? NAMED_BY_CHECK[mcoFailing.reason] : undefined;
      return named ? { words, ...named } : { words, hint: MCO_HINT };
    }
    if (
      gates.some(([, description]) => carries(words, description)) ||
      /^admin-gates configmap gate /.test(words) ||
      /ConfigMap admin-(gates|acks)|admin-(gates|acks) configmap not found/.test(words)
    )
      return { words, ...NAMED_BY_CHECK.AdminAckRequired! };
    const fixed = FIXED.find((f) => f.match.test(words));
    if (fixed) return { words, hint: fixed.hint };
    // The reason the 4.22 CVO passed on names the cause even where the words are clipped or not read.
    if (reason && NAMED_BY_CHECK[reason]) return { words, ...NAMED_BY_CHECK[reason]! };
    return { words, hint: GENERIC_HINT };
  });
  return { release, conditions, causes };
}
