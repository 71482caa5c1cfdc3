import type { Schema } from "./validate";

/*
 * What the API server does to a custom resource before it validates or stores it, and again when it
 * reads it back from storage (k8s.io/apiextensions-apiserver pkg/apiserver/customresource_handler.go,
 * `unstructuredSchemaCoercer.apply`, then the codec's `unstructuredDefaulter`):
 *   1. metadata is decoded into ObjectMeta: fields ObjectMeta does not have are dropped
 *      (pkg/apiserver/schema/objectmeta `GetObjectMetaWithOptions`, `SetObjectMeta`);
 *   2. every field the structural schema does not specify is dropped, except under
 *      `x-kubernetes-preserve-unknown-fields`; apiVersion, kind and metadata at the root are left to
 *      step 1 (pkg/apiserver/schema/pruning `PruneWithOptions`);
 *   3. a null where the schema is not nullable and has no default is dropped
 *      (pkg/apiserver/schema/defaulting `PruneNonNullableNullsWithoutDefaults`);
 *   4. `default`s fill absent fields, and non-nullable nulls (defaulting `Default`).
 * The dropped paths are what the server reports as `unknown field "<path>"` (a warning, or with
 * fieldValidation=Strict an error).
 */

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v);

/** The JSON fields of apimachinery metav1.ObjectMeta, OwnerReference and ManagedFieldsEntry (pkg/apis/meta/v1/types.go). */
const OBJECT_META = new Set([
  "name",
  "generateName",
  "namespace",
  "selfLink",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "labels",
  "annotations",
  "ownerReferences",
  "finalizers",
  "managedFields",
]);
const OWNER_REFERENCE = new Set(["apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion"]);
const MANAGED_FIELDS_ENTRY = new Set(["manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1", "subresource"]);
const META_FIELDS = new Set(["apiVersion", "kind", "metadata"]);

/** Step 1: unknown ObjectMeta fields (and unknown fields of its owner references and managed-fields entries) dropped. */
export function pruneObjectMeta(object: Json): string[] {
  const metadata = object.metadata;
  if (!isObject(metadata)) return [];
  const dropped: string[] = [];
  for (const k of Object.keys(metadata)) {
    if (!OBJECT_META.has(k)) {
      dropped.push(`metadata.${k}`);
      delete metadata[k];
    }
  }
  for (const [list, known] of [
    ["ownerReferences", OWNER_REFERENCE],
    ["managedFields", MANAGED_FIELDS_ENTRY],
  ] as const) {
    const items = metadata[list];
    if (!Array.isArray(items)) continue;
    items.forEach((item, i) => {
      if (!isObject(item)) return;
      for (const k of Object.keys(item))
        if (!known.has(k)) {
          dropped.push(`metadata.${list}[${i}].${k}`);
          delete item[k];
        }
    });
  }
  return dropped;
}

const subSchema = (s: Schema, key: string): Schema | null | undefined =>
  s.properties?.[key] ??
  (s.additionalProperties === undefined || s.additionalProperties === false
    ? undefined
    : typeof s.additionalProperties === "object"
      ? s.additionalProperties
      : null);

/**
 * Step 2 (pruning/algorithm.go `prune`): drops the fields `schema` does not specify, in place, and
 * returns their paths (`spec.a[0].b`), sorted as Go's sort.Strings does. `schema` null is "no schema":
 * everything under it goes (what `additionalProperties: true` without a schema amounts to).
 */
export function pruneUnknownFields(object: unknown, schema: Schema | null, isResourceRoot = true): string[] {
  const dropped: string[] = [];
  const root: Schema | null = isResourceRoot ? { ...(schema ?? {}), "x-kubernetes-embedded-resource": true } : schema;
  prune(object, root, "", dropped);
  return dropped.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

function prune(x: unknown, s: Schema | null, path: string, dropped: string[]): void {
  if (s?.["x-kubernetes-preserve-unknown-fields"]) return skipPrune(x, s, path, dropped);
  if (isObject(x)) {
    if (!s) {
      for (const k of Object.keys(x)) {
        dropped.push(join(path, k));
        delete x[k];
      }
      return;
    }
    for (const k of Object.keys(x)) {
      if (s["x-kubernetes-embedded-resource"] && META_FIELDS.has(k)) continue;
      const sub = subSchema(s, k);
      if (sub !== undefined) prune(x[k], sub, join(path, k), dropped);
      else {
        if (!META_FIELDS.has(k) || path !== "") dropped.push(join(path, k));
        delete x[k];
      }
    }
  } else if (Array.isArray(x)) {
    x.forEach((item, i) => prune(item, s ? (s.items ?? null) : null, `${path}[${i}]`, dropped));
  }
}

/** Under x-kubernetes-preserve-unknown-fields: unknown fields stay, known ones are pruned by their own schema. */
function skipPrune(x: unknown, s: Schema, path: string, dropped: string[]): void {
  if (isObject(x)) {
    for (const k of Object.keys(x)) {
      if (s["x-kubernetes-embedded-resource"] && META_FIELDS.has(k)) continue;
      const sub = subSchema(s, k);
      if (sub !== undefined) prune(x[k], sub, join(path, k), dropped);
    }
  } else if (Array.isArray(x) && s.items) {
    x.forEach((item, i) => skipPrune(item, s.items!, `${path}[${i}]`, dropped));
  }
}

/** Step 3 (defaulting/prunenulls.go): a map value null where its schema is not nullable and has no default is dropped. */
export function pruneNonNullableNullsWithoutDefaults(x: unknown, s: Schema | null | undefined): void {
  if (isObject(x)) {
    for (const [k, v] of Object.entries(x)) {
      const sub = s ? subSchema(s, k) : undefined;
      if (v === null && sub && !sub.nullable && sub.default === undefined) delete x[k];
      else pruneNonNullableNullsWithoutDefaults(v, sub);
    }
  } else if (Array.isArray(x)) {
    for (const item of x) pruneNonNullableNullsWithoutDefaults(item, s?.items);
  }
}

const nonNullableNull = (v: unknown, s: Schema | null | undefined) => v === null && !!s && !s.nullable;

/** Step 4 (defaulting/algorithm.go `Default`): defaults fill absent properties and non-nullable nulls, deep-copied. */
export function applyDefaults(x: unknown, s: Schema | null | undefined): void {
  if (!s) return;
  if (isObject(x)) {
    for (const [k, prop] of Object.entries(s.properties ?? {})) {
      if (prop.default === undefined) continue;
      if (!(k in x) || nonNullableNull(x[k], prop)) x[k] = structuredClone(prop.default);
    }
    for (const k of Object.keys(x)) {
      const prop = s.properties?.[k];
      if (prop) applyDefaults(x[k], prop);
      else if (typeof s.additionalProperties === "object") {
        if (nonNullableNull(x[k], s.additionalProperties)) x[k] = structuredClone(s.additionalProperties.default ?? null);
        applyDefaults(x[k], s.additionalProperties);
      }
    }
  } else if (Array.isArray(x)) {
    x.forEach((item, i) => {
      if (nonNullableNull(item, s.items)) x[i] = structuredClone(s.items!.default ?? null);
      applyDefaults(x[i], s.items);
    });
  }
}

/**
 * All four steps on an object about to be validated and stored (or read back), in place. Returns the
 * dropped paths in the order the API server reports them: metadata's first, then the pruned ones.
 */
export function coerceObject(schema: Schema, object: Json): string[] {
  const dropped = pruneObjectMeta(object);
  dropped.push(...pruneUnknownFields(object, schema));
  pruneNonNullableNullsWithoutDefaults(object, schema);
  applyDefaults(object, schema);
  return dropped;
}
