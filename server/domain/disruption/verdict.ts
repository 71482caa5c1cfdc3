import type { Change, Preview } from "./engine";
import type { Action } from "./policy";

/**
 * The one-line answers a person reads: per pool ("Reboot", "Restart chronyd.service, no drain",
 * "Drain + reload crio.service", "No disruption", "Refused", "Unknown") and for a fleet.
 */
export const REFUSED = "Refused";
/** A pool whose current configuration cannot be rebuilt, so nothing can be predicted for it. */
export const UNKNOWN = "Unknown";

/**
 * What runs on the node, in words (§4 execution table): `Special` is the MCD's `systemctl reload
 * crio`, so it reads as the reload it is.
 */
function inWords(a: Action): string {
  switch (a.type) {
    case "Reload":
      return `reload ${a.reload.serviceName}`;
    case "Restart":
      return `restart ${a.restart.serviceName}`;
    case "Special":
      return "reload crio.service";
    case "DaemonReload":
      return "daemon-reload";
    default:
      return a.type.toLowerCase();
  }
}
const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** One action as a person reads it in a list of actions: "Reload crio.service", "Restart chronyd.service", "Reboot". */
export const actionInWords = (a: Action): string => capitalised(inWords(a));

/** A change with its actions in words, in the same order as `actions`. */
export type ExplainedChange = Change & { actionWords: string[] };
/** A preview with every action in words: the pool's own and each change's, in the same order as their `actions`. */
export type ExplainedPreview = Omit<Preview, "changes"> & { actionWords: string[]; changes: ExplainedChange[] };

/** The preview with the words beside every action, so no reader has to phrase the actions again. */
export function explained(p: Preview): ExplainedPreview {
  return {
    ...p,
    actionWords: p.actions.map(actionInWords),
    changes: p.changes.map((c) => ({ ...c, actionWords: c.actions.map(actionInWords) })),
  };
}

export function verdictOf(p: Preview): string {
  if (p.unreconcilable.length) return REFUSED;
  if (p.reboot) return "Reboot";
  const real = p.actions.filter((a) => a.type !== "None" && a.type !== "Drain");
  if (real.length === 0) return p.drain ? "Drain" : "No disruption";
  const actions = [...new Set(real.map(inWords))].join(", ");
  return p.drain ? `Drain + ${actions}` : `${capitalised(actions)}, no drain`;
}

/** A preview with nothing predicted, for a pool whose verdict is UNKNOWN (its notes say why). */
export const NO_PREDICTION: Preview = {
  path: "node-disruption-policy",
  actions: [],
  reboot: false,
  drain: false,
  drainReason: null,
  unreconcilable: [],
  changes: [],
  warnings: [],
  imageMode: null,
  mcoRelease: null,
};

export type FleetSummary = {
  rebootNodes: number;
  rebootClusters: number;
  otherNodes: number;
  otherClusters: number;
  /** Pools whose change the MCO refuses (§2): it is not applied there at all, so it is no "no reboot". */
  refusedNodes: number;
  refusedClusters: number;
  /** Pools whose current configuration could not be rebuilt, so no verdict was given. */
  unknownPools: number;
  /** Unreachable clusters previewed from the configuration kept from their last sweep. */
  stored: number;
  failed: number;
  /** Which clusters each count is, so a reader can find them: all of them, in the order previewed. */
  names: {
    reboot: string[];
    other: string[];
    refused: string[];
    /** Clusters where no pool selects the MachineConfig: the change does nothing there. */
    unmatched: string[];
    failed: string[];
  };
  text: string;
};

type ClusterAnswer = { cluster: string } & ({ error: string } | { source: "live" | "stored"; pools: { verdict: string; nodes: number }[] });

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
/** The first few names, and how many more: "a, b, c and 4 more". */
export function someNames(names: string[], few = 3): string {
  if (names.length <= few + 1) return names.join(", ");
  return `${names.slice(0, few).join(", ")} and ${names.length - few} more`;
}
const named = (names: string[]) => (names.length ? ` (${someNames(names)})` : "");

/** The fleet preview's summary line: "reboots 340 nodes in 12 clusters (a, b, c and 9 more), no reboot in 30 clusters (…)". */
export function summarizeFleet(clusters: ClusterAnswer[]): FleetSummary {
  let rebootNodes = 0,
    otherNodes = 0,
    refusedNodes = 0,
    unknownPools = 0,
    stored = 0;
  const names: FleetSummary["names"] = { reboot: [], other: [], refused: [], unmatched: [], failed: [] };
  for (const c of clusters) {
    if ("error" in c) {
      names.failed.push(c.cluster);
      continue;
    }
    if (c.source === "stored") stored++;
    const reboots = c.pools.filter((p) => p.verdict === "Reboot");
    const refused = c.pools.filter((p) => p.verdict === REFUSED);
    const others = c.pools.filter((p) => !["Reboot", REFUSED, "No disruption", UNKNOWN].includes(p.verdict));
    rebootNodes += reboots.reduce((s, p) => s + p.nodes, 0);
    otherNodes += others.reduce((s, p) => s + p.nodes, 0);
    refusedNodes += refused.reduce((s, p) => s + p.nodes, 0);
    unknownPools += c.pools.filter((p) => p.verdict === UNKNOWN).length;
    if (reboots.length) names.reboot.push(c.cluster);
    else if (others.length) names.other.push(c.cluster);
    if (refused.length) names.refused.push(c.cluster);
    if (!c.pools.length) names.unmatched.push(c.cluster);
  }
  const rebootClusters = names.reboot.length,
    otherClusters = names.other.length,
    refusedClusters = names.refused.length,
    failed = names.failed.length;
  const text = [
    `reboots ${plural(rebootNodes, "node")} in ${plural(rebootClusters, "cluster")}${named(names.reboot)}, no reboot in ${plural(otherClusters, "cluster")} (${plural(otherNodes, "node")}${names.other.length ? `: ${someNames(names.other)}` : ""})`,
    refusedClusters
      ? `refused in ${plural(refusedClusters, "cluster")}${named(names.refused)} (${plural(refusedNodes, "node")} left as they are)`
      : null,
    names.unmatched.length
      ? `${plural(names.unmatched.length, "cluster")} left out, no pool there selects this MachineConfig${named(names.unmatched)}`
      : null,
    unknownPools ? `${plural(unknownPools, "pool")} could not be judged` : null,
    stored
      ? `${plural(stored, "unreachable cluster")} previewed from the configuration of ${stored === 1 ? "its" : "their"} last sweep`
      : null,
    failed ? `${plural(failed, "cluster")} could not be previewed${named(names.failed)}` : null,
  ]
    .filter(Boolean)
    .join("; ");
  return {
    rebootNodes,
    rebootClusters,
    otherNodes,
    otherClusters,
    refusedNodes,
    refusedClusters,
    unknownPools,
    stored,
    failed,
    names,
    text,
  };
}
