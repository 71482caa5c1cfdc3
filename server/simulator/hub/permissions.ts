import { ADDON_INSTALL_NAMESPACE } from "./objects";
import type { PolicyRule, RequestAttributes } from "./rbac";
import { ruleAllows } from "./rbac";

/**
 * The RBAC a ClusterPermission puts on its managed cluster, as the cluster-permission controller
 * builds its ManifestWork (stolostron/cluster-permission controllers/clusterpermission_controller.go,
 * generateManifestWorkPayload and generateSubjects): a ClusterRole named after the ClusterPermission,
 * ClusterRoleBindings to it (or to the roleRef given), Roles and RoleBindings per namespace, and
 * ManagedServiceAccount subjects turned into the ServiceAccount of that name in the add-on's namespace.
 */
export type Subject = { kind: string; name: string; namespace?: string; apiGroup?: string };
type RoleRef = { kind?: string; name?: string; apiGroup?: string };
type Binding = { subject?: Subject; subjects?: Subject[]; roleRef?: RoleRef; namespace?: string; name?: string };
export type ClusterPermissionSpec = {
  clusterRole?: { rules?: PolicyRule[] };
  clusterRoleBinding?: Binding;
  clusterRoleBindings?: Binding[];
  roles?: { namespace?: string; name?: string; rules?: PolicyRule[] }[];
  roleBindings?: Binding[];
};

/** One binding in effect on a managed cluster: who, what, and in which namespace (none: cluster-wide). */
export type EffectiveBinding = { subjects: Subject[]; rules: PolicyRule[]; namespace?: string };

export const ALL_RULE: PolicyRule = { apiGroups: ["*"], resources: ["*"], verbs: ["*"], nonResourceURLs: ["*"] };

const subjectsOf = (b: Binding): Subject[] => (b.subjects && b.subjects.length > 0 ? b.subjects : b.subject ? [b.subject] : []);

export const hasBindings = (spec: ClusterPermissionSpec) =>
  spec.clusterRoleBinding !== undefined || (spec.clusterRoleBindings?.length ?? 0) > 0 || (spec.roleBindings?.length ?? 0) > 0;

/** The controller knows a ManagedServiceAccount subject by its kind and API group both (clusterpermission_controller.go generateSubjects). */
const MSA_GROUP = "authentication.open-cluster-management.io";
const isManagedServiceAccount = (s: Subject) => s.kind === "ManagedServiceAccount" && s.apiGroup === MSA_GROUP;

/** ManagedServiceAccount subjects named by a spec (they must exist before the controller applies it). */
export function managedServiceAccountSubjects(spec: ClusterPermissionSpec): string[] {
  const all = [spec.clusterRoleBinding, ...(spec.clusterRoleBindings ?? []), ...(spec.roleBindings ?? [])].filter(
    (b): b is Binding => b !== undefined,
  );
  return all
    .flatMap(subjectsOf)
    .filter(isManagedServiceAccount)
    .map((s) => s.name);
}

const mapSubject = (s: Subject): Subject =>
  isManagedServiceAccount(s) ? { kind: "ServiceAccount", name: s.name, namespace: ADDON_INSTALL_NAMESPACE } : s;

/** The bindings a ClusterPermission named `name` creates on its managed cluster. */
export function effectiveBindings(name: string, spec: ClusterPermissionSpec): EffectiveBinding[] {
  const ownClusterRole = spec.clusterRole?.rules ?? [];
  const roleRules = (namespace: string | undefined, roleName: string) =>
    (spec.roles ?? []).filter((r) => (r.name ?? name) === roleName && r.namespace === namespace).flatMap((r) => r.rules ?? []);
  const clusterRoleRules = (roleName: string): PolicyRule[] =>
    roleName === name ? ownClusterRole : roleName === "cluster-admin" ? [ALL_RULE] : [];
  const result: EffectiveBinding[] = [];
  for (const b of [spec.clusterRoleBinding, ...(spec.clusterRoleBindings ?? [])]) {
    if (!b) continue;
    result.push({ subjects: subjectsOf(b).map(mapSubject), rules: clusterRoleRules(b.roleRef?.name || name) });
  }
  for (const b of spec.roleBindings ?? []) {
    const refName = b.roleRef?.name || name;
    const rules = b.roleRef?.kind === "ClusterRole" ? clusterRoleRules(refName) : roleRules(b.namespace, refName);
    result.push({ subjects: subjectsOf(b).map(mapSubject), rules, namespace: b.namespace });
  }
  return result;
}

export type ClusterIdentity = { user: string; groups: string[] };

function subjectMatches(s: Subject, who: ClusterIdentity): boolean {
  if (s.kind === "User") return s.name === who.user;
  if (s.kind === "Group") return who.groups.includes(s.name);
  if (s.kind === "ServiceAccount") return who.user === `system:serviceaccount:${s.namespace}:${s.name}`;
  return false;
}

/** Whether the bindings in effect allow the request for this identity (RBAC is additive: any binding suffices). */
export function allowedBy(bindings: EffectiveBinding[], who: ClusterIdentity, request: RequestAttributes): boolean {
  return bindings.some(
    (b) =>
      b.subjects.some((s) => subjectMatches(s, who)) &&
      (b.namespace === undefined || (request.kind === "resource" && request.attrs.namespace === b.namespace)) &&
      b.rules.some((rule) => ruleAllows(rule, request)),
  );
}
