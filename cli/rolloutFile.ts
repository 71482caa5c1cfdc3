/**
 * A rollout file: the body of POST /api/v1/rollouts as YAML, checked here with the server's own
 * schema so a mistake is named (field and reason) before anything is sent.
 */
import { parseDocument } from "yaml";
import type { z } from "zod";
import { RolloutRequestSchema } from "../server/rollouts/contract";

/** A rollout file is a few hundred bytes; a large one is a mistake (or worse), not a plan. */
export const MAX_ROLLOUT_FILE_BYTES = 512 * 1024;

export type RolloutFileResult = { ok: true; body: z.input<typeof RolloutRequestSchema> } | { ok: false; problems: string[] };

const KINDS = ["upgrade", "bundle", "acknowledgement"];

const at = (value: unknown, path: readonly PropertyKey[]): unknown =>
  path.reduce<unknown>((v, key) => (typeof v === "object" && v !== null ? (v as Record<PropertyKey, unknown>)[key] : undefined), value);

const typeName = (value: unknown) =>
  Array.isArray(value) ? "a list" : value === null ? "null" : typeof value === "object" ? "a mapping" : `a ${typeof value}`;

/** One zod issue in words: "strategy.maxConcurrency: must be at least 1". */
function describeIssue(issue: z.core.$ZodIssue, input: Record<string, unknown>, prefix: readonly PropertyKey[] = []): string {
  const path = [...prefix, ...issue.path];
  const where = path.map(String).join(".");
  const said = (text: string) => `${where ? `${where}: ` : ""}${text}`;
  const value = at(input, path);
  if (where === "kind" || (issue.code === "invalid_union" && where === "" && !KINDS.includes(String(input.kind))))
    return `kind: must be one of ${KINDS.join(", ")}${input.kind === undefined ? " (it is missing)" : `, not ${JSON.stringify(input.kind)}`}`;
  if (issue.code === "invalid_union" && where === "selection") {
    const selection = (value ?? {}) as Record<string, unknown>;
    const branch = "clusters" in selection && !("query" in selection) ? 1 : "query" in selection && !("clusters" in selection) ? 0 : -1;
    const inner = branch >= 0 ? issue.errors[branch]?.[0] : undefined;
    if (inner) return describeIssue(inner, input, path);
    return 'selection: give either query (the fleet view\'s query string, e.g. "version=4.19&platform=AWS") or clusters (a list of names), one of them';
  }
  // A message the schema words itself ("name at least one cluster") is kept; zod's defaults are reworded.
  if (!/^(Too (small|big)|Invalid|Expected)/.test(issue.message) && issue.code !== "unrecognized_keys") return said(issue.message);
  if (issue.code === "unrecognized_keys") return said(`unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}`);
  if (issue.code === "invalid_type" && value === undefined) return said("is required");
  if (issue.code === "invalid_type")
    return said(
      `must be ${issue.expected === "array" ? "a list" : issue.expected === "object" ? "a mapping" : `a ${issue.expected}`}, not ${typeName(value)}${typeof value === "number" && issue.expected === "string" ? ` (quote it: "${value}")` : ""}`,
    );
  if (issue.code === "too_small")
    return said(
      issue.origin === "array"
        ? `needs at least ${issue.minimum} item${Number(issue.minimum) === 1 ? "" : "s"}`
        : issue.origin === "string"
          ? `must not be empty`
          : `must be at least ${issue.minimum}`,
    );
  if (issue.code === "too_big")
    return said(
      issue.origin === "array"
        ? `may have at most ${issue.maximum} items`
        : issue.origin === "string"
          ? `may be at most ${issue.maximum} characters`
          : `must be at most ${issue.maximum}`,
    );
  if (issue.code === "invalid_value") return said(`must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`);
  return said(issue.message);
}

/**
 * Reads the file's text into the request, with `dryRun` set by the command line (the file leaves
 * it out, so one file is both planned in a dry run and saved).
 */
export function readRolloutFile(text: string, dryRun: boolean): RolloutFileResult {
  if (Buffer.byteLength(text) > MAX_ROLLOUT_FILE_BYTES)
    return { ok: false, problems: [`larger than ${MAX_ROLLOUT_FILE_BYTES / 1024} KiB; a rollout file is a few lines`] };
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length) return { ok: false, problems: doc.errors.slice(0, 3).map((e) => `not valid YAML: ${e.message.split("\n")[0]}`) };
  let value: unknown;
  try {
    // A few aliases are YAML; thousands are a billion-laughs bomb.
    value = doc.toJS({ maxAliasCount: 50 });
  } catch (error) {
    return { ok: false, problems: [`not valid YAML: ${(error as Error).message.split("\n")[0]}`] };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { ok: false, problems: ["must be a mapping of the request's fields (kind, target, selection, strategy, windows)"] };
  const input = value as Record<string, unknown>;
  if ("dryRun" in input) return { ok: false, problems: ["dryRun: leave it out of the file; --dry-run on the command line decides"] };
  const body = { ...input, dryRun };
  const checked = RolloutRequestSchema.safeParse(body);
  if (!checked.success) return { ok: false, problems: checked.error.issues.slice(0, 5).map((issue) => describeIssue(issue, input)) };
  // The file's own values are sent (durations as written), not the schema's reading of them.
  return { ok: true, body: body as z.input<typeof RolloutRequestSchema> };
}
