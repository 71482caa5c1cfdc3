import { evaluateReadiness, type Readiness } from ".";
import type { ClusterSnapshot, Condition } from "../snapshot";
import { healthyCluster, healthyCvConditions, history, versionFacts } from "../testing/snapshots";

/** Helpers for the readiness tests: one check of an evaluation, and clusters with chosen ClusterVersion conditions. */
export const check = (r: Readiness, id: string) => {
  const found = r.checks.find((c) => c.id === id);
  if (!found) throw new Error(`no check ${id}`);
  return found;
};
export const run = (s: ClusterSnapshot, target: string, id: string) => check(evaluateReadiness(s, target), id);

/** A healthy 4.19.10 cluster whose ClusterVersion conditions are replaced or extended. */
export const withCv = (conditions: Condition[], more: Parameters<typeof versionFacts>[1] = {}) =>
  healthyCluster({ version: versionFacts(history("4.19.10"), { ...more, conditions }) });
export const cvPlus = (...extra: Condition[]) =>
  withCv([...healthyCvConditions("4.19.10").filter((c) => !extra.some((e) => e.type === c.type)), ...extra]);

export const STABLE_IDS = [
  "target-version",
  "cv-upgradeable",
  "cv-failing",
  "cv-invalid",
  "cv-progressing",
  "cv-retrieved-updates",
  "cv-release-accepted",
  "admin-acks",
  "pools-degraded",
  "pools-paused",
  "pools-updating",
  "image-mode-builds",
  "boot-image-skew",
  "machinesets-skipped",
  "pinned-images",
  "conditional-update-risks",
  "rhel-major-change",
  "os-stream-runc",
  "single-node",
  "bare-metal",
  "registry-less",
  "alerts-critical",
  "alerts-pdb",
  "alerts-image-pull",
  "alerts-node",
  "alerts-update-precheck",
  "alerts-virt",
];
