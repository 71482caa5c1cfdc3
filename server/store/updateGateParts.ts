import type { UpdateGateParts } from "../domain/readiness";
import type { Condition, ReadProblem } from "../domain/snapshot";

/**
 * The parts of a stored snapshot the update gates read (UpdateGateParts), cut out in SQL so that a
 * plan over a whole fleet reads a few hundred bytes per cluster, not its whole snapshot: ClusterVersion
 * without its history and update lists, the MCO's conditions, the admin gates and acknowledgements,
 * and the read problems. `snap` names a row with the snapshot's
 * top-level keys as jsonb columns (`jsonb_to_record`), so the snapshot is read once per cluster, not
 * once per key.
 */
export const UPDATE_GATE_KEYS = `version jsonb, "machineConfigOperator" jsonb, "adminGates" jsonb, "adminAcks" jsonb, problems jsonb`;

export function updateGatePartsSql(snap: string): string {
  // Whole keys, no per-row subqueries: the decoder below keeps what the checks read.
  return `jsonb_build_object('version', ${snap}.version - 'history' - 'availableUpdates' - 'conditionalUpdates',
      'machineConfigOperator', ${snap}."machineConfigOperator", 'adminGates', ${snap}."adminGates", 'adminAcks', ${snap}."adminAcks",
      'problems', ${snap}.problems)`;
}

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

// A condition's time as Postgres writes jsonb: "since": "<text>" (a quote inside a message is escaped, so never matches).
const SINCE = /"since": "[^"\\]*(?:\\.[^"\\]*)*"/g;

/**
 * A decoder for one plan: clusters of one release and state have the same parts but for when each
 * condition last changed, which the gates do not read; without it they are decoded once and shared
 * (read-only), so a plan over a large fleet judges each distinct state once (eligibility memoises by it).
 */
export function updateGatePartsDecoder(): (json: string | null | undefined) => UpdateGateParts {
  const seen = new Map<string, UpdateGateParts>();
  return (json) => {
    if (!json) return NOTHING_READ;
    const key = json.replace(SINCE, '"since": null');
    let parts = seen.get(key);
    if (!parts) seen.set(key, (parts = decodeUpdateGateParts(key)));
    return parts;
  };
}
