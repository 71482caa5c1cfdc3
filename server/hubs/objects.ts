import { z } from "zod";
import { CONDITION_MESSAGE_MAX } from "../domain/clip";
import type {
  AddOnObject,
  ClusterInfoObject,
  ManagedClusterObject,
  PermissionObject,
  ServiceAccountObject,
} from "../domain/hubEligibility";

/**
 * The hub's objects as the sync may use them: each one checked, field by field, against the shape
 * and bounds its API declares, before anything of it is judged or stored. A hub is another party:
 * one object of a wrong shape (a claim whose value is a number, a label that is a list) is set aside
 * with its reason, and the rest of the hub syncs as usual.
 *
 * Bounds from the APIs: a claim's name is at most 253 characters and its value at most 1,024
 * (open-cluster-management-io/api, cluster/v1/types.go, ManagedClusterClaim); a condition's type
 * 316, reason 1,024 and message 32,768 (k8s.io/apimachinery/pkg/apis/meta/v1/types.go, Condition);
 * a label's key 317 (a 253-character prefix, "/", 63) and value 63 (Kubernetes label syntax);
 * a name 253 (a DNS subdomain).
 */
const text = (max: number) => z.string().max(max);
const name = z.string().min(1).max(253);
const labels = z
  .record(text(317), text(63))
  .refine((l) => Object.keys(l).length <= 512, "more than 512 labels")
  .nullish();
const condition = z.object({
  type: text(316).nullish(),
  status: text(32).nullish(),
  reason: text(1024).nullish(),
  message: text(CONDITION_MESSAGE_MAX).nullish(),
});
const conditions = z.array(condition).max(128).nullish();
const meta = z.object({ name, namespace: name.nullish(), labels, deletionTimestamp: text(64).nullish() });

const ManagedClusterSchema = z.object({
  metadata: meta,
  status: z
    .object({
      conditions,
      // The registration agent sends its reserved claims and 20 custom ones by default (max-custom-cluster-claims).
      clusterClaims: z
        .array(z.object({ name: text(253).nullish(), value: text(1024).nullish() }))
        .max(512)
        .nullish(),
    })
    .nullish(),
});
const NamespacedSchema = z.object({
  metadata: meta.extend({ namespace: name }),
  status: z
    .object({ conditions, tokenSecretRef: z.object({ name: name.nullish(), lastRefreshTimestamp: text(64).nullish() }).nullish() })
    .nullish(),
});
const ClusterInfoSchema = z.object({
  metadata: meta.extend({ namespace: name }),
  status: z
    .object({
      distributionInfo: z
        .object({
          type: text(64).nullish(),
          ocp: z
            .object({
              version: text(128).nullish(),
              desiredVersion: text(128).nullish(),
              desired: z.object({ version: text(128).nullish() }).nullish(),
              upgradeFailed: z.boolean().nullish(),
            })
            .nullish(),
        })
        .nullish(),
      nodeList: z
        .array(z.object({ name: text(253).nullish(), conditions }))
        .max(100_000)
        .nullish(),
    })
    .nullish(),
});

/** One object set aside: which (kind, and name or namespace when it has one) and why. */
export type SetAside = { kind: string; key: string | null; problem: string };

const describe = (error: z.ZodError) => {
  const issue = error.issues[0]!;
  return `${issue.path.join(".") || "the object"}: ${issue.message}`;
};

function screen<T>(kind: string, items: unknown[], schema: z.ZodType, keyOf: (o: unknown) => unknown) {
  const kept: T[] = [];
  const setAside: SetAside[] = [];
  for (const item of items) {
    const parsed = schema.safeParse(item);
    if (parsed.success) kept.push(parsed.data as T);
    else {
      const key = keyOf(item);
      setAside.push({ kind, key: typeof key === "string" && key.length <= 253 ? key : null, problem: describe(parsed.error) });
    }
  }
  return { kept, setAside };
}

const metadataOf = (o: unknown) => (o as { metadata?: { name?: unknown; namespace?: unknown } } | null)?.metadata;

/** A managed cluster is known by its name, its other objects by their namespace (the cluster's name). */
export const screenManagedClusters = (items: unknown[]) =>
  screen<ManagedClusterObject>("ManagedCluster", items, ManagedClusterSchema, (o) => metadataOf(o)?.name);
export const screenAddOns = (items: unknown[]) =>
  screen<AddOnObject>("ManagedClusterAddOn", items, NamespacedSchema, (o) => metadataOf(o)?.namespace);
export const screenPermissions = (items: unknown[]) =>
  screen<PermissionObject>("ClusterPermission", items, NamespacedSchema, (o) => metadataOf(o)?.namespace);
export const screenServiceAccounts = (items: unknown[]) =>
  screen<ServiceAccountObject>("ManagedServiceAccount", items, NamespacedSchema, (o) => metadataOf(o)?.namespace);
export const screenClusterInfos = (items: unknown[]) =>
  screen<ClusterInfoObject>("ManagedClusterInfo", items, ClusterInfoSchema, (o) => metadataOf(o)?.namespace);

/** The reason a member shows when one of its objects was set aside. */
export const setAsideReason = (s: SetAside) =>
  `the hub's ${s.kind} for it is malformed (${s.problem.slice(0, 300)}); Fleetskew leaves it as it was until the hub corrects it`;
