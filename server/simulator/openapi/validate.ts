import type { CelInput } from "@bufbuild/cel";
import { compileRule } from "./cel";
import { formatAccepts } from "./formats";

/*
 * What the Kubernetes API server checks of a custom resource against its CRD's structural schema
 * (k8s.io/apiextensions-apiserver pkg/registry/customresource strategy.go `Validate`/`ValidateUpdate`):
 * first the OpenAPI keywords (kube-openapi's validator, its results turned into field errors by
 * pkg/apiserver/validation `kubeOpenAPIResultToFieldErrors`), then list-map key uniqueness, then,
 * unless one of those errors blocks it, the `x-kubernetes-validations` CEL rules
 * (pkg/apiserver/schema/cel `Validator.validate`). On an update, validation ratchets
 * (CRDValidationRatcheting, on since Kubernetes 1.30): a node whose value equals its correlated old
 * value (same object field, same map key, same list-map key) keeps its errors to itself.
 */

export type ValidationRule = {
  rule: string;
  message?: string;
  messageExpression?: string;
  fieldPath?: string;
  reason?: "FieldValueInvalid" | "FieldValueForbidden" | "FieldValueRequired" | "FieldValueDuplicate";
  optionalOldSelf?: boolean;
  /** Set by scripts/extract-crd-schemas.ts for a rule the simulator cannot evaluate: it is skipped. */
  unsupported?: string;
};

export type Schema = {
  type?: "object" | "array" | "string" | "integer" | "number" | "boolean";
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  required?: string[];
  enum?: unknown[];
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  pattern?: string;
  format?: string;
  nullable?: boolean;
  default?: unknown;
  "x-kubernetes-validations"?: ValidationRule[];
  "x-kubernetes-list-type"?: "atomic" | "set" | "map";
  "x-kubernetes-list-map-keys"?: string[];
  "x-kubernetes-map-type"?: "granular" | "atomic";
  "x-kubernetes-int-or-string"?: boolean;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-embedded-resource"?: boolean;
};

export type ErrorType =
  | "FieldValueRequired"
  | "FieldValueInvalid"
  | "FieldValueTypeInvalid"
  | "FieldValueNotSupported"
  | "FieldValueForbidden"
  | "FieldValueTooLong"
  | "FieldValueTooMany"
  | "FieldValueDuplicate";

/** No value shown in the message (field.OmitValueType). */
export const OMIT = Symbol("omit");

/** One k8s.io/apimachinery field.Error. */
export type FieldError = { type: ErrorType; field: string; value: unknown; detail: string };

const TYPE_WORDS: Record<ErrorType, string> = {
  FieldValueRequired: "Required value",
  FieldValueInvalid: "Invalid value",
  FieldValueTypeInvalid: "Invalid value",
  FieldValueNotSupported: "Unsupported value",
  FieldValueForbidden: "Forbidden",
  FieldValueTooLong: "Too long",
  FieldValueTooMany: "Too many",
  FieldValueDuplicate: "Duplicate value",
};

/** A value as Go's fmt prints it in field errors (%q for strings, %v for numbers, %#v otherwise). */
function goValue(value: unknown): string {
  if (value === null || value === undefined) return '"null"';
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `[]interface {}{${value.map(goValue).join(", ")}}`;
  return `map[string]interface {}{${Object.entries(value as Record<string, unknown>)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${JSON.stringify(k)}:${goValue(v)}`)
    .join(", ")}}`;
}

/** field.Error.ErrorBody: the message without the field path. */
export function errorBody(e: FieldError): string {
  const word = TYPE_WORDS[e.type];
  const omit = ["FieldValueRequired", "FieldValueForbidden", "FieldValueTooLong"].includes(e.type) || e.value === OMIT;
  const head = omit ? word : `${word}: ${goValue(e.value)}`;
  return e.detail ? `${head}: ${e.detail}` : head;
}

/** field.Error.Error(). */
export const errorString = (e: FieldError) => `${e.field}: ${errorBody(e)}`;

// Paths as field.Path prints them.
const child = (path: string, name: string) => (path ? `${path}.${name}` : name);
const index = (path: string, i: number) => `${path}[${i}]`;
const key = (path: string, k: string) => `${path}[${k}]`;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}

/** For a list-map, the old item with the same keys as `item` (how both validators correlate list items). */
function correlatedItem(schema: Schema, item: unknown, old: unknown): unknown {
  const keys = schema["x-kubernetes-list-map-keys"];
  if (schema["x-kubernetes-list-type"] !== "map" || !keys || !Array.isArray(old) || !isObject(item)) return undefined;
  return old.find((o) => isObject(o) && keys.every((k) => deepEqual(o[k], item[k])));
}

function typeMatches(schema: Schema, value: unknown): boolean {
  if (schema["x-kubernetes-int-or-string"]) return typeof value === "string" || Number.isInteger(value);
  switch (schema.type) {
    case "object":
      return isObject(value);
    case "array":
      return Array.isArray(value);
    case "string":
      return typeof value === "string";
    case "integer":
      return Number.isInteger(value);
    case "number":
      return typeof value === "number";
    case "boolean":
      return typeof value === "boolean";
    default:
      return true;
  }
}

const jsonType = (value: unknown) =>
  Array.isArray(value)
    ? "array"
    : value === null
      ? "null"
      : typeof value === "number"
        ? Number.isInteger(value)
          ? "integer"
          : "number"
        : typeof value === "object"
          ? "object"
          : typeof value;

/** A node is left alone on an update when it has a correlated old value equal to it (ratcheting). */
type Old = { present: boolean; value: unknown };
const NO_OLD: Old = { present: false, value: undefined };
const unchanged = (value: unknown, old: Old) => old.present && deepEqual(value, old.value);

/** kube-openapi's keyword checks and list-map uniqueness, for one node and everything under it. */
function schemaErrors(schema: Schema, value: unknown, old: Old, path: string, out: FieldError[]): void {
  if (value === undefined || unchanged(value, old)) return;
  if (value === null) {
    if (!schema.nullable && schema.type)
      out.push({
        type: "FieldValueTypeInvalid",
        field: path,
        value: "null",
        detail: `${path} in body must be of type ${schema.type}: "null"`,
      });
    return;
  }
  if (!typeMatches(schema, value)) {
    const expected = schema["x-kubernetes-int-or-string"] ? "integer,string" : schema.type;
    const actual = jsonType(value);
    out.push({
      type: "FieldValueTypeInvalid",
      field: path,
      value: actual,
      detail: `${path} in body must be of type ${expected}: ${JSON.stringify(actual)}`,
    });
    return;
  }
  if (schema.enum && !schema.enum.some((e) => deepEqual(e, value))) {
    out.push({
      type: "FieldValueNotSupported",
      field: path,
      value,
      detail: `supported values: ${schema.enum.map((e) => JSON.stringify(typeof e === "string" ? e : JSON.stringify(e))).join(", ")}`,
    });
  }
  if (typeof value === "string") {
    const length = [...value].length;
    if (schema.maxLength !== undefined && length > schema.maxLength)
      out.push({ type: "FieldValueTooLong", field: path, value, detail: `may not be more than ${schema.maxLength} bytes` });
    if (schema.minLength !== undefined && length < schema.minLength)
      out.push({
        type: "FieldValueInvalid",
        field: path,
        value,
        detail: `${path} in body should be at least ${schema.minLength} chars long`,
      });
    if (schema.pattern !== undefined && !new RegExp(schema.pattern).test(value))
      out.push({ type: "FieldValueInvalid", field: path, value, detail: `${path} in body should match '${schema.pattern}'` });
    // kube-openapi's formatValidator (errors.InvalidType, reported as field.TypeInvalid): ./formats.ts
    if (schema.format !== undefined && !formatAccepts(schema.format, value))
      out.push({
        type: "FieldValueTypeInvalid",
        field: path,
        value,
        detail: `${path} in body must be of type ${schema.format}: ${JSON.stringify(value)}`,
      });
  }
  if (typeof value === "number") {
    if (schema.minimum !== undefined && (schema.exclusiveMinimum ? value <= schema.minimum : value < schema.minimum))
      out.push({
        type: "FieldValueInvalid",
        field: path,
        value,
        detail: `${path} in body should be greater than ${schema.exclusiveMinimum ? "" : "or equal to "}${schema.minimum}`,
      });
    if (schema.maximum !== undefined && (schema.exclusiveMaximum ? value >= schema.maximum : value > schema.maximum))
      out.push({
        type: "FieldValueInvalid",
        field: path,
        value,
        detail: `${path} in body should be less than ${schema.exclusiveMaximum ? "" : "or equal to "}${schema.maximum}`,
      });
  }
  if (Array.isArray(value)) {
    if (schema.maxItems !== undefined && value.length > schema.maxItems)
      out.push({ type: "FieldValueTooMany", field: path, value: value.length, detail: `must have at most ${schema.maxItems} items` });
    if (schema.minItems !== undefined && value.length < schema.minItems)
      out.push({
        type: "FieldValueInvalid",
        field: path,
        value: value.length,
        detail: `${path} in body should have at least ${schema.minItems} items`,
      });
    if (schema.items) value.forEach((item, i) => schemaErrors(schema.items!, item, oldItem(schema, item, old), index(path, i), out));
  }
  if (isObject(value)) {
    for (const name of schema.required ?? [])
      if (value[name] === undefined) out.push({ type: "FieldValueRequired", field: child(path, name), value: "", detail: "" });
    const count = Object.keys(value).length;
    if (schema.maxProperties !== undefined && count > schema.maxProperties)
      out.push({ type: "FieldValueTooMany", field: path, value: count, detail: `must have at most ${schema.maxProperties} items` });
    if (schema.minProperties !== undefined && count < schema.minProperties)
      out.push({
        type: "FieldValueInvalid",
        field: path,
        value: count,
        detail: `${path} in body should have at least ${schema.minProperties} properties`,
      });
    for (const [name, v] of Object.entries(value)) {
      const sub = schema.properties?.[name] ?? (typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined);
      if (!sub) continue; // pruned by a real API server; nothing to check
      const o = isObject(old.value) && old.value[name] !== undefined ? { present: true, value: old.value[name] } : NO_OLD;
      schemaErrors(sub, v, o, schema.properties?.[name] ? child(path, name) : key(path, name), out);
    }
  }
}

function oldItem(schema: Schema, item: unknown, old: Old): Old {
  const found = correlatedItem(schema, item, old.value);
  return found === undefined ? NO_OLD : { present: true, value: found };
}

/** structurallisttype.ValidateListSetsAndMaps: list-map keys and set items must be unique. */
function listErrors(schema: Schema, value: unknown, path: string, out: FieldError[]): void {
  if (Array.isArray(value)) {
    const type = schema["x-kubernetes-list-type"];
    const keys = schema["x-kubernetes-list-map-keys"] ?? [];
    const seen: unknown[] = [];
    value.forEach((item, i) => {
      const identity = type === "map" && isObject(item) ? Object.fromEntries(keys.map((k) => [k, item[k]])) : item;
      if (type === "map" || type === "set") {
        if (seen.some((s) => deepEqual(s, identity)))
          out.push({ type: "FieldValueDuplicate", field: index(path, i), value: identity, detail: "" });
        else seen.push(identity);
      }
      if (schema.items) listErrors(schema.items, item, index(path, i), out);
    });
  } else if (isObject(value)) {
    for (const [name, v] of Object.entries(value)) {
      const sub = schema.properties?.[name] ?? (typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined);
      if (sub) listErrors(sub, v, schema.properties?.[name] ? child(path, name) : key(path, name), out);
    }
  }
}

/** A JSON value as CEL sees it under its schema: integers are CEL ints. */
function toCel(schema: Schema | undefined, value: unknown): CelInput {
  if (value === null || value === undefined) return null;
  if (typeof value === "number")
    return (schema?.type === "integer" || schema?.["x-kubernetes-int-or-string"] || (!schema && Number.isInteger(value))) &&
      Number.isInteger(value)
      ? BigInt(value)
      : value;
  if (Array.isArray(value)) return value.map((v) => toCel(schema?.items, v));
  if (isObject(value)) {
    const out: Record<string, CelInput> = {};
    for (const [k, v] of Object.entries(value)) {
      const sub = schema?.properties?.[k] ?? (typeof schema?.additionalProperties === "object" ? schema.additionalProperties : undefined);
      if (schema && !sub && !schema["x-kubernetes-preserve-unknown-fields"]) continue; // a real server pruned it
      out[k] = toCel(sub, v);
    }
    return out as CelInput;
  }
  return value as CelInput;
}

/** The rules on one node, then on everything under it (pkg/apiserver/schema/cel validation.go). */
function celErrors(schema: Schema, value: unknown, old: Old, path: string, root: boolean, out: FieldError[]): void {
  if (value === undefined || value === null) return;
  const ratchet = unchanged(value, old);
  const rules = schema["x-kubernetes-validations"] ?? [];
  if (rules.length) {
    const self = toCel(schema, value);
    if (root && isObject(value) && isObject(value.metadata) && isObject(self)) {
      // WithTypeAndObjectMeta: a rule at the root sees metadata.name and generateName only.
      const { name, generateName } = value.metadata;
      (self as Record<string, CelInput>).metadata = {
        ...(typeof name === "string" ? { name } : {}),
        ...(typeof generateName === "string" ? { generateName } : {}),
      };
    }
    const oldSelf = old.present ? toCel(schema, old.value) : undefined;
    const display = schema.type === "object" || schema.type === "array" ? OMIT : value;
    for (const rule of rules) {
      if (rule.unsupported) continue;
      const program = compileRule(rule.rule);
      if (program.usesOldSelf && !old.present && !rule.optionalOldSelf) continue; // transition rules need an old value
      if (ratchet && !program.usesOldSelf) continue;
      const result = program.eval(program.usesOldSelf ? { self, oldSelf: oldSelf ?? null } : { self });
      const ruleString = (rule.message ?? "").trim() || rule.rule.trim();
      if (!result.ok) {
        out.push({
          type: "FieldValueInvalid",
          field: path,
          value: schema.type ?? "",
          detail: `${result.error} evaluating rule: ${ruleString}`,
        });
        continue;
      }
      if (result.value === true) continue;
      let detail = rule.message?.trim() ? rule.message.trim() : `failed rule: ${ruleString}`;
      if (rule.messageExpression) {
        const message = compileRule(rule.messageExpression).eval({ self, ...(oldSelf !== undefined ? { oldSelf } : {}) });
        if (message.ok && typeof message.value === "string" && message.value.trim() && !/\n/.test(message.value))
          detail = message.value.trim();
      }
      const field = rule.fieldPath
        ? `${path}${rule.fieldPath.startsWith(".") || rule.fieldPath.startsWith("[") ? "" : "."}${rule.fieldPath}`.replace(/^\./, "")
        : path;
      if (rule.reason === "FieldValueForbidden" || rule.reason === "FieldValueRequired")
        out.push({ type: rule.reason, field, value: "", detail });
      else if (rule.reason === "FieldValueDuplicate") out.push({ type: rule.reason, field, value: display, detail: "" });
      else out.push({ type: "FieldValueInvalid", field, value: display, detail });
    }
  }
  if (Array.isArray(value) && schema.items)
    value.forEach((item, i) => celErrors(schema.items!, item, oldItem(schema, item, old), index(path, i), false, out));
  if (isObject(value)) {
    for (const [name, v] of Object.entries(value)) {
      const sub = schema.properties?.[name] ?? (typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined);
      if (!sub) continue;
      const o = isObject(old.value) && old.value[name] !== undefined ? { present: true, value: old.value[name] } : NO_OLD;
      celErrors(sub, v, o, schema.properties?.[name] ? child(path, name) : key(path, name), false, out);
    }
  }
}

/** Errors that keep the CEL rules from running (strategy.go `hasBlockingErr`). */
const BLOCKING: ErrorType[] = [
  "FieldValueNotSupported",
  "FieldValueRequired",
  "FieldValueTooLong",
  "FieldValueTooMany",
  "FieldValueTypeInvalid",
];

/**
 * Every field error the API server would answer a write of `object` with, in its order; `old` is
 * the stored object on an update. Metadata is the API server's own business and not looked at here.
 */
export function validateObject(schema: Schema, object: Record<string, unknown>, old?: Record<string, unknown>): FieldError[] {
  const { metadata: _m, ...body } = object;
  const { metadata: _o, ...oldBody } = old ?? {};
  const bodySchema: Schema = { ...schema, properties: { ...schema.properties }, "x-kubernetes-validations": undefined };
  delete bodySchema.properties!.metadata;
  const rootOld: Old = old ? { present: true, value: oldBody } : NO_OLD;
  const errors: FieldError[] = [];
  schemaErrors(bodySchema, body, rootOld, "", errors);
  listErrors(bodySchema, body, "", errors);
  if (errors.some((e) => BLOCKING.includes(e.type))) {
    errors.push({
      type: "FieldValueInvalid",
      field: "<nil>",
      value: null,
      detail: "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
    });
    return errors;
  }
  celErrors(schema, object, old ? { present: true, value: old } : NO_OLD, "", true, errors);
  // A rule at the root has no path; field.Path prints that as "<nil>".
  return errors.map((e) => (e.field === "" ? { ...e, field: "<nil>" } : e));
}
