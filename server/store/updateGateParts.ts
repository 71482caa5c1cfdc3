import type { UpdateGateParts } from "../domain/readiness";
import type { Condition, ReadProblem } from "../domain/snapshot";

/**
 * The parts of a stored snapshot the update gates read (UpdateGateParts), cut out in SQL when the
 * snapshot is written ("planParts"."gates", migration 20261129090000_plan_parts), so that a plan over
 * a whole fleet reads a few hundred bytes per cluster, not its whole snapshot: ClusterVersion without
 * its history and update lists, the MCO's conditions, the admin gates and acknowledgements, and the
 * read problems. Decoded here.
 */

// Decoded by hand rather than by a zod schema: a plan reads ten thousand of these, and the checks
// take anything malformed as "not read" anyway.
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v: unknown): string | null => (typeof v === "string" ? v : null);

function conditionsOf(v: unknown): Condition[] {
  if (!Array.isArray(v)) return [];
  return v.flatMap((c: unknown) =>
    isRecord(c) && typeof c.type === "string" && typeof c.status === "string"
      ? [{ type: c.type, status: c.status, reason: text(c.reason), message: text(c.message), since: text(c.since) }]
      : [],
  );
}

function stringMapOf(v: unknown): Record<string, string> | null {
  if (!isRecord(v)) return null;
  return Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === "string"));
}

function problemsOf(v: unknown): ReadProblem[] {
  if (!Array.isArray(v)) return [];
  // Only ClusterVersion's problems are read by the gates (cvProblem).
  return v.flatMap((p: unknown) =>
    isRecord(p) && p.part === "ClusterVersion" && typeof p.message === "string" && (p.kind === "not-available" || p.kind === "error")
      ? [{ part: p.part, kind: p.kind, message: p.message }]
      : [],
  );
}

const NOTHING_READ: UpdateGateParts = { version: null, machineConfigOperator: null, adminGates: null, adminAcks: null, problems: [] };

/** The parts as the query returned them; what is missing or malformed is "not read", as the checks expect. */
export function decodeUpdateGateParts(json: string | null | undefined): UpdateGateParts {
  const parts: unknown = json ? JSON.parse(json) : null;
  if (!isRecord(parts)) return NOTHING_READ;
  const v = parts.version;
  return {
    version: isRecord(v)
      ? { current: text(v.current), desired: text(v.desired), updating: v.updating === true, conditions: conditionsOf(v.conditions) }
      : null,
    machineConfigOperator: Array.isArray(parts.machineConfigOperator)
      ? conditionsOf(parts.machineConfigOperator).filter((c) => c.type === "Upgradeable")
      : null,
    adminGates: stringMapOf(parts.adminGates),
    adminAcks: stringMapOf(parts.adminAcks),
    problems: problemsOf(parts.problems),
  };
}

/**
 * A decoder for one plan: clusters of one release and state have the same parts to the byte (the
 * conditions' times were left out when they were cut: migration 20261129090000_plan_parts), so each
 * distinct one is decoded once and shared (read-only), and a plan over a large fleet judges each
 * distinct state once (eligibility memoises by it).
 */
export function updateGatePartsDecoder(): (json: string | null | undefined) => UpdateGateParts {
  const seen = new Map<string, UpdateGateParts>();
  return (json) => {
    if (!json) return NOTHING_READ;
    let parts = seen.get(json);
    if (!parts) seen.set(json, (parts = decodeUpdateGateParts(json)));
    return parts;
  };
}
