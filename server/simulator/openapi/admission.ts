import clusterPermissions from "../../../data/openapi/clusterpermissions.json";
import clusterVersions from "../../../data/openapi/clusterversions.json";
import machineConfigurations from "../../../data/openapi/machineconfigurations.json";
import managedServiceAccounts from "../../../data/openapi/managedserviceaccounts.json";
import pinnedImageSets from "../../../data/openapi/pinnedimagesets.json";
import { ApiError } from "../apiError";
import type { KindInfo } from "../kinds";
import type { KubeObject } from "../objectStore";
import { errorBody, errorString, validateObject, type FieldError, type Schema } from "./validate";

/*
 * The CRD schemas the simulated API servers hold writes to (data/openapi, extracted by
 * scripts/extract-crd-schemas.ts with the upstream commit in each file; docs/simulator.md "What the
 * simulated API server refuses"), and the 422 they answer a write that breaks them with.
 */

type SchemaFile = { source: Record<string, unknown>; group: string; version: string; kind: string; schema: unknown };

const FILES: SchemaFile[] = [pinnedImageSets, machineConfigurations, clusterVersions, clusterPermissions, managedServiceAccounts];
const SCHEMAS = new Map(FILES.map((f) => [`${f.group}/${f.version}/${f.kind}`, f.schema as Schema]));

/** The schema a kind is validated against, or undefined when the simulator holds none for it. */
export const schemaFor = (info: KindInfo): Schema | undefined => SCHEMAS.get(`${info.group}/${info.version}/${info.kind}`);

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

/** Throws the API server's 422 when `next` breaks its kind's schema; `old` is the stored object on an update. */
export function admit(info: KindInfo, next: KubeObject, old?: KubeObject): void {
  const schema = schemaFor(info);
  if (!schema) return;
  const errors = validateObject(schema, next as Record<string, unknown>, old as Record<string, unknown> | undefined);
  if (errors.length) throw invalid(info, next.metadata?.name ?? "", errors);
}
