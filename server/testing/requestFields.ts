import { RolloutRequestSchema } from "../domain/rollouts/request";

/**
 * The fields of the rollout request schema, found by walking the schema itself (for the tests that
 * hold the rollout's view and page to it): a field added to the schema is a field these tests ask
 * to see shown.
 */
type Def = { type: string; [key: string]: unknown };
const defOf = (schema: unknown) => (schema as { _zod: { def: Def } })._zod.def;

/** Every leaf field of a schema as a dotted path; a record's values under `*`. */
export function fieldsOf(schema: unknown, prefix = ""): string[] {
  const def = defOf(schema);
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "readonly":
      return fieldsOf(def.innerType, prefix);
    case "pipe":
      return fieldsOf(def.in, prefix);
    case "object":
      return Object.entries(def.shape as Record<string, unknown>).flatMap(([key, value]) =>
        fieldsOf(value, prefix ? `${prefix}.${key}` : key),
      );
    case "union": {
      const options = def.options as unknown[];
      // A union of objects (the selection) has the fields of each; a union of values is one field.
      if (options.every((o) => defOf(o).type === "object")) return [...new Set(options.flatMap((o) => fieldsOf(o, prefix)))];
      return [prefix];
    }
    case "record":
      return fieldsOf(def.valueType, `${prefix}.*`);
    default:
      return [prefix];
  }
}

/** Each kind of request with its own fields (the discriminated union's options). */
export const requestFieldsByKind = (): Record<string, string[]> =>
  Object.fromEntries(
    (defOf(RolloutRequestSchema).options as unknown[]).map((option) => {
      const shape = defOf(option).shape as Record<string, unknown>;
      const kind = (defOf(shape.kind).values as string[])[0]!;
      return [kind, fieldsOf(option)];
    }),
  );

/** Fields that never reach a saved rollout, and why. */
export const NEVER_SAVED: Record<string, string> = { dryRun: "a dry run is not saved; a saved rollout never is one" };

/** Whether a setting shown for `setting` (a field path) shows `field` (a field of the schema, records' values as `*`). */
export const covers = (setting: string, field: string) =>
  setting === field || field.startsWith(`${setting}.`) || field.replace(/\.\*(?=\.|$)/g, "") === setting;
