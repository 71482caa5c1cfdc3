import { z } from "zod";
import type { UpdateGateParts } from "../domain/readiness";

/**
 * The parts of a stored snapshot the update gates read (UpdateGateParts), cut out in SQL so that a
 * plan over a whole fleet reads a few hundred bytes per cluster, not its whole snapshot: ClusterVersion
 * without its history and update lists, the MCO's Upgradeable condition alone, the admin gates and
 * acknowledgements, and the ClusterVersion read problems.
 */
export function updateGatePartsSql(snapshot: string): string {
  const array = (expr: string) => `CASE WHEN jsonb_typeof(${expr}) = 'array' THEN ${expr} ELSE '[]'::jsonb END`;
  const object = (expr: string) => `CASE WHEN jsonb_typeof(${expr}) = 'object' THEN ${expr} END`;
  const v = `${snapshot}->'version'`;
  const mco = `${snapshot}->'machineConfigOperator'`;
  return `jsonb_build_object(
      'version', CASE WHEN jsonb_typeof(${v}) = 'object' THEN jsonb_build_object('current', ${v}->'current', 'desired', ${v}->'desired',
                   'updating', ${v}->'updating', 'conditions', ${array(`${v}->'conditions'`)}) END,
      'machineConfigOperator', CASE WHEN jsonb_typeof(${mco}) = 'array' THEN
          (SELECT coalesce(jsonb_agg(x), '[]'::jsonb) FROM jsonb_array_elements(${mco}) x WHERE x->>'type' = 'Upgradeable') END,
      'adminGates', ${object(`${snapshot}->'adminGates'`)},
      'adminAcks', ${object(`${snapshot}->'adminAcks'`)},
      'problems', (SELECT coalesce(jsonb_agg(p), '[]'::jsonb) FROM jsonb_array_elements(${array(`${snapshot}->'problems'`)}) p
                    WHERE p->>'part' = 'ClusterVersion'))`;
}

const text = z.string().nullable().catch(null);
const ConditionSchema = z.object({ type: z.string(), status: z.string(), reason: text, message: text, since: text });
const conditions = z
  .array(z.unknown())
  .catch([])
  .transform((items) => items.flatMap((item) => ConditionSchema.safeParse(item).data ?? []));
const stringMap = z
  .record(z.string(), z.unknown())
  .nullable()
  .catch(null)
  .transform((map) =>
    map ? Object.fromEntries(Object.entries(map).filter((e): e is [string, string] => typeof e[1] === "string")) : null,
  );

const UpdateGatePartsSchema = z.object({
  version: z
    .object({ current: text, desired: text, updating: z.boolean().catch(false), conditions })
    .nullable()
    .catch(null),
  machineConfigOperator: conditions.nullable().catch(null),
  adminGates: stringMap,
  adminAcks: stringMap,
  problems: z
    .array(z.unknown())
    .catch([])
    .transform((items) =>
      items.flatMap(
        (item) => z.object({ part: z.string(), kind: z.enum(["not-available", "error"]), message: z.string() }).safeParse(item).data ?? [],
      ),
    ),
}) satisfies z.ZodType<UpdateGateParts, unknown>;

const NOTHING_READ: UpdateGateParts = { version: null, machineConfigOperator: null, adminGates: null, adminAcks: null, problems: [] };

/** The parts as the query returned them; what is missing or malformed is "not read", as the checks expect. */
export function decodeUpdateGateParts(json: string | null | undefined): UpdateGateParts {
  if (!json) return NOTHING_READ;
  return UpdateGatePartsSchema.safeParse(JSON.parse(json)).data ?? NOTHING_READ;
}
