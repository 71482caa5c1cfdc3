import { ApiError } from "../apiError";
import type { KindInfo } from "../kinds";
import type { KubeObject } from "../objectStore";
import { resolveSchema, type SchemaTarget } from "./schemas";
import { coerceObject } from "./structural";
import { errorBody, errorString, validateObject, type FieldError, type Schema } from "./validate";

/*
 * What the simulated API servers do with a write to a kind whose CRD schema they hold
 * (./schemas.ts picks the cluster's release line; docs/simulator.md "What the simulated API server
 * refuses"): drop what the schema does not know and fill its defaults (./structural.ts), then
 * answer a write that breaks the schema with a 422.
 */

/** The schema a kind is held to on a cluster (`target`: its minor and feature set; the newest line when omitted), or undefined when the simulator holds none. */
export const schemaFor = (info: KindInfo, target?: SchemaTarget): Schema | undefined => resolveSchema(info, target)?.schema;

/**
 * Prunes and defaults `obj` in place as the API server does on decoding a request or reading from
 * storage; returns the API server's `unknown field "<path>"` for each dropped field.
 */
export function coerce(info: KindInfo, obj: KubeObject, target?: SchemaTarget): string[] {
  const schema = schemaFor(info, target);
  if (!schema) return [];
  return coerceObject(schema, obj as Record<string, unknown>).map((path) => `unknown field "${path}"`);
}

/**
 * apierrors.NewInvalid: 422 Invalid, a message naming the object and every error (one as is,
 * several as `[a, b]`, repeats dropped), and each error as a cause.
 */
export function invalid(info: KindInfo, name: string, errors: FieldError[]): ApiError {
  const messages = [...new Set(errors.map(errorString))];
  const summary = messages.length === 1 ? messages[0] : `[${messages.join(", ")}]`;
  return new ApiError(422, "Invalid", `${info.kind}.${info.group} "${name}" is invalid: ${summary}`, {
    name,
    group: info.group,
    kind: info.kind,
    causes: errors.map((e) => ({ reason: e.type, message: errorBody(e), field: e.field })),
  });
}

/** Throws the API server's 422 when `next` breaks its kind's schema on that cluster; `old` is the stored object on an update. */
export function admit(info: KindInfo, next: KubeObject, old?: KubeObject, target?: SchemaTarget): void {
  const schema = schemaFor(info, target);
  if (!schema) return;
  const errors = validateObject(schema, next as Record<string, unknown>, old as Record<string, unknown> | undefined);
  if (errors.length) throw invalid(info, next.metadata?.name ?? "", errors);
}
