import type { SkewLimitEntry } from "../skew";
import type { ClusterSnapshot, ClusterVersionFacts } from "../snapshot";
import { compareVersions, parseOcpVersion, type Version } from "../versions";

/**
 * What every readiness check is given and gives back: the checks' vocabulary, the context of one
 * evaluation (snapshot, target, update kind, limits), and the helpers that word their evidence.
 */

/** The most intermediate minor releases a readiness check walks through. */
export const MAX_STEPS = 30;

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

export type Target = {
  text: string;
  version: Version | null;
  /** "4.23" names a minor, not one release. */
  minorOnly: boolean;
  label: string;
};

export const parseTarget = (target: unknown): Target => {
  const text = typeof target === "string" ? target.trim() : "";
  const version = /^v?\d+\.\d+(\.\d+)?([-+].*)?$/.test(text) ? parseOcpVersion(text) : null;
  const minorOnly = /^v?\d+\.\d+$/.test(text);
  return { text, version, minorOnly, label: version ? `${version.major}.${version.minor}` : text };
};

export function updateKindOf(current: Version | null, target: Target): UpdateKind {
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

// Evidence references, named as an admin finds them with `oc get`.
export const CV = (condition: string): Evidence => ({ kind: "ClusterVersion", name: "version", field: `status.conditions[${condition}]` });
export const CO_MC = (condition: string): Evidence => ({
  kind: "ClusterOperator",
  name: "machine-config",
  field: `status.conditions[${condition}]`,
});
export const MC_SKEW: Evidence = { kind: "MachineConfiguration", name: "cluster", field: "status.bootImageSkewEnforcementStatus" };
export const CV_HISTORY: Evidence = { kind: "ClusterVersion", name: "version", field: "status.history" };
export const INFRA = (field: string): Evidence => ({ kind: "Infrastructure", name: "cluster", field });
export const MACHINE_SET = (name: string): Evidence => ({
  kind: "MachineSet",
  name,
  namespace: "openshift-machine-api",
  field: "spec.template.spec.providerSpec.value",
});
export const POOL = (name: string, field: string): Evidence => ({ kind: "MachineConfigPool", name, field });

export const quote = (text: string | null | undefined) => (text ? `"${text}"` : "(no message)");
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
export const list = (items: string[]) => items.join(", ");

export const problemsOf = (s: Pick<ClusterSnapshot, "problems">, part: string) =>
  (Array.isArray(s.problems) ? s.problems : []).filter((p) => p?.part === part);

/** The read problems of one part of the snapshot, as a sentence; null when it was read. */
export function problemOf(s: Pick<ClusterSnapshot, "problems">, part: string): string | null {
  const found = problemsOf(s, part);
  if (found.length === 0) return null;
  return found
    .map((p) => (p.kind === "not-available" ? `${part} is not available: ${p.message}` : `${part} could not be read: ${p.message}`))
    .join("; ");
}

export type Draft = Omit<ReadinessCheck, "id" | "title">;
export const pass = (detail: string, evidence: Evidence[] = []): Draft => ({ status: "pass", detail, evidence, remediation: null });
export const unknown = (detail: string, evidence: Evidence[] = [], remediation: string | null = null): Draft => ({
  status: "unknown",
  detail,
  evidence,
  remediation,
});
export const warn = (detail: string, evidence: Evidence[], remediation: string): Draft => ({
  status: "warn",
  detail,
  evidence,
  remediation,
});
export const fail = (detail: string, evidence: Evidence[], remediation: string): Draft => ({
  status: "fail",
  detail,
  evidence,
  remediation,
});

/** A pass that rests on a partly unreadable part is only as good as what was read. */
export const downgradeOnProblem = (draft: Draft, problem: string | null): Draft =>
  problem && draft.status === "pass" ? { ...draft, status: "unknown", detail: `${draft.detail} But ${problem}.` } : draft;

export type Context = {
  s: ClusterSnapshot;
  target: Target;
  current: Version | null;
  currentText: string | null;
  kind: UpdateKind;
  /** Minor and multi-minor updates: the ones Upgradeable=False and admin gates block. */
  minorUpdate: boolean;
  limits: SkewLimitEntry[];
};

/**
 * The parts of a snapshot the update gates read: ClusterVersion's conditions and versions, the MCO's
 * Upgradeable condition and the admin gates. Small enough to read for a whole fleet at once (a
 * rollout's plan judges every selected cluster against its target with them).
 */
export type UpdateGateParts = Pick<ClusterSnapshot, "machineConfigOperator" | "adminGates" | "adminAcks" | "problems"> & {
  version: Pick<ClusterVersionFacts, "current" | "desired" | "updating" | "conditions"> | null;
};

/** What the update gates are given: the context of one evaluation over those parts alone. */
export type GateContext = Omit<Context, "s"> & { s: UpdateGateParts };

export const notAnUpdate = (c: GateContext): string | null => {
  if (c.kind === "invalid")
    return c.current
      ? `"${c.target.text}" is not an OpenShift version`
      : "the cluster's current version is not known, so the update cannot be assessed";
  if (c.kind === "downgrade") return `${c.target.text} is older than the current ${c.currentText}; there is no update to assess`;
  return null;
};

export const cvProblem = (s: Pick<ClusterSnapshot, "problems">) => problemOf(s, "ClusterVersion") ?? "ClusterVersion could not be read";
