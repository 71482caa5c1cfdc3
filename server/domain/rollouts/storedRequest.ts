/**
 * A rollout's request as the database keeps it: the output of RolloutRequestSchema (durations in
 * milliseconds, amounts read, windows checked), written once when the plan is saved. The store
 * decodes every row with this schema, so nothing reads a stored request through a cast; the type
 * check below fails the build when this schema and RolloutRequest drift apart.
 */
import { z } from "zod";
import type { RolloutRequest } from "./request";

const amount = z.union([z.strictObject({ count: z.number().int().min(0) }), z.strictObject({ percent: z.number().min(0).max(100) })]);
const ms = z.number().min(0);

const StoredWindow = z.strictObject({ schedule: z.string(), durationMs: ms, timeZone: z.string() });

const common = {
  selection: z.union([z.strictObject({ query: z.string() }), z.strictObject({ clusters: z.array(z.string()) })]),
  strategy: z.strictObject({
    canaries: z.union([z.number().int().min(0), z.array(z.string())]),
    maxConcurrency: amount.optional(),
    groupBy: z.string().optional(),
    minSuccessTime: ms.nullable(),
    progressDeadline: ms.nullable().optional(),
    maxFailures: amount,
    mandatoryGroups: z.array(z.string()),
    onFailure: z.enum(["pause", "continue"]),
    releaseEachWave: z.boolean(),
  }),
  windows: z
    .strictObject({
      default: StoredWindow.optional(),
      label: z.string().optional(),
      byValue: z.record(z.string(), StoredWindow).optional(),
    })
    .optional(),
  // Never stored (a dry run is not saved); read as false.
  dryRun: z.boolean().default(false),
};

export const StoredRolloutRequestSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("upgrade"), target: z.string(), acceptRisks: z.array(z.string()), ...common }),
  z.strictObject({ kind: z.literal("bundle"), bundle: z.string(), startUpgrade: z.boolean(), unpinAfter: z.boolean(), ...common }),
  z.strictObject({
    kind: z.literal("acknowledgement"),
    acknowledgement: z.strictObject({
      mode: z.string(),
      ocpVersion: z.string().optional(),
      rhcosVersion: z.string().optional(),
      evidence: z.string(),
    }),
    ...common,
  }),
]);

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Fails to compile when the stored shape is not exactly what RolloutRequestSchema gives. */
export const storedShapeIsTheRequest: Same<z.output<typeof StoredRolloutRequestSchema>, RolloutRequest> = true;

export type StoredRequestResult = { ok: true; request: RolloutRequest } | { ok: false; reason: string };

/** Reads a stored request; a row that does not decode says which field, never passes as a request. */
export function decodeStoredRequest(stored: unknown): StoredRequestResult {
  const parsed = StoredRolloutRequestSchema.safeParse(stored);
  if (parsed.success) return { ok: true, request: parsed.data };
  const issue = parsed.error.issues[0]!;
  return { ok: false, reason: `${issue.path.length ? `${issue.path.join(".")}: ` : ""}${issue.message}` };
}
