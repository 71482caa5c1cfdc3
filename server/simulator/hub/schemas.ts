import { z } from "zod";
import { ApiError } from "../apiError";
import type { KindInfo } from "../kinds";
import type { KubeObject } from "../objectStore";
import { HUB_KINDS } from "./kinds";

/**
 * The structural schemas the hub's CRDs enforce for the two kinds clients write (PERM
 * `config/crds/rbac.open-cluster-management.io_clusterpermissions.yaml`, MSA
 * `config/crd/bases/authentication.open-cluster-management.io_managedserviceaccounts.yaml`): a body
 * of the wrong shape is refused with 422 Invalid before any controller sees it.
 */
const strings = z.array(z.string());
const rule = z.object({
  verbs: strings,
  apiGroups: strings.optional(),
  resources: strings.optional(),
  resourceNames: strings.optional(),
  nonResourceURLs: strings.optional(),
});
const subject = z.object({ kind: z.string(), name: z.string(), apiGroup: z.string().optional(), namespace: z.string().optional() });
/** A RoleBinding's roleRef needs only its kind; a ClusterRoleBinding's is a full rbac/v1 RoleRef. */
const roleRef = z.object({ kind: z.string(), name: z.string().optional(), apiGroup: z.string().optional() });
const clusterRoleRef = z.object({ kind: z.string(), name: z.string(), apiGroup: z.string() });
const selector = z.object({}).passthrough();
const binding = z.object({
  name: z.string().optional(),
  namespace: z.string().optional(),
  namespaceSelector: selector.optional(),
  roleRef: clusterRoleRef.optional(),
  subject: subject.optional(),
  subjects: z.array(subject).optional(),
});

const clusterPermissionSpec = z.object({
  validate: z.boolean().optional(),
  clusterRole: z.object({ rules: z.array(rule) }).optional(),
  clusterRoleBinding: binding.optional(),
  clusterRoleBindings: z.array(binding).optional(),
  roles: z
    .array(
      z.object({
        name: z.string().optional(),
        namespace: z.string().optional(),
        namespaceSelector: selector.optional(),
        rules: z.array(rule),
      }),
    )
    .optional(),
  roleBindings: z.array(binding.extend({ roleRef: roleRef })).optional(),
});

const managedServiceAccountSpec = z.object({
  rotation: z
    .object({
      enabled: z.boolean().optional(),
      validity: z
        .string()
        .regex(/^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/, "must be a duration")
        .optional(),
    })
    .optional(),
  ttlSecondsAfterCreation: z.number().int().min(0).optional(),
});

const SPECS = new Map<KindInfo, z.ZodType>([
  [HUB_KINDS.clusterPermission, clusterPermissionSpec],
  [HUB_KINDS.managedServiceAccount, managedServiceAccountSpec],
]);

/** Throws the API server's 422 when `obj`'s spec does not fit its kind's schema. */
export function validateSpec(info: KindInfo, obj: KubeObject): void {
  const schema = SPECS.get(info);
  if (!schema) return;
  const result = schema.safeParse(obj.spec ?? {});
  if (result.success) return;
  const issue = result.error.issues[0]!;
  const field = ["spec", ...issue.path.map(String)].join(".");
  throw new ApiError(
    422,
    "Invalid",
    `${info.kind}.${info.group} "${obj.metadata?.name ?? ""}" is invalid: ${field}: Invalid value: ${issue.message}`,
    { name: obj.metadata?.name, group: info.group, kind: info.kind },
  );
}
