/**
 * Whether Fleetskew can follow one of an ACM hub's managed clusters, and if not, the first reason
 * why (docs/acm.md §6). Pure: the hub sync gathers the objects, this decides.
 */

/** OpenShift products, as the ACM agent's `product.open-cluster-management.io` claim names them (MOF clusterclaimer.go ProductOCPList). */
export const OPENSHIFT_PRODUCTS = ["OpenShift", "OpenShiftDedicated", "ROSA", "ARO", "ROKS", "OCP"];
export const LOCAL_CLUSTER = "local-cluster";
export const CLUSTER_SET_LABEL = "cluster.open-cluster-management.io/clusterset";
export const HUB_LABEL = "fleetskew.io/hub";

export type HubClusterState = "available" | "lease-expired" | "removed";
export type Eligibility =
  | "eligible"
  | "not-openshift"
  | "hosted-control-plane"
  | "unavailable"
  | "proxy-addon-unavailable"
  | "permissions-pending"
  | "name-taken"
  // One of its objects on the hub has a shape its API does not allow: set aside with the reason.
  | "malformed";

type Condition = { type?: string; status?: string; reason?: string; message?: string };
type Meta = { name?: string; labels?: Record<string, string>; deletionTimestamp?: string };

/** The parts of a ManagedCluster this reads (cluster.open-cluster-management.io/v1). */
export type ManagedClusterObject = {
  metadata?: Meta;
  status?: { conditions?: Condition[]; clusterClaims?: { name?: string; value?: string }[] };
};
/** The cluster-proxy ManagedClusterAddOn (addon.open-cluster-management.io/v1alpha1). */
export type AddOnObject = { metadata?: Meta & { namespace?: string }; status?: { conditions?: Condition[] } };
/** Fleetskew's ClusterPermission in the cluster's namespace (rbac.open-cluster-management.io/v1alpha1). */
export type PermissionObject = { metadata?: Meta & { namespace?: string }; status?: { conditions?: Condition[] } };
/** Fleetskew's ManagedServiceAccount in the cluster's namespace (authentication.open-cluster-management.io/v1beta1). */
export type ServiceAccountObject = {
  metadata?: Meta & { namespace?: string };
  status?: { conditions?: Condition[]; tokenSecretRef?: { name?: string; lastRefreshTimestamp?: string } };
};
/** The cluster's ManagedClusterInfo (internal.open-cluster-management.io/v1beta1), the parts read. */
export type ClusterInfoObject = {
  metadata?: Meta & { namespace?: string };
  status?: {
    distributionInfo?: {
      type?: string;
      ocp?: { version?: string; desiredVersion?: string; desired?: { version?: string }; upgradeFailed?: boolean };
    };
    nodeList?: { name?: string; conditions?: Condition[] }[];
  };
};

/**
 * On a hub without impersonation, what reaching the cluster with Fleetskew's ManagedServiceAccount
 * depends on: the managed-serviceaccount add-on, the account, and whether its token has been reported.
 */
export type ServiceAccountAccess = { addOn: AddOnObject | undefined; account: ServiceAccountObject | undefined; tokenReported: boolean };

/** Who Fleetskew's ClusterPermission binds on a managed cluster (an rbac/v1 Subject as the ClusterPermission API takes it). */
export type PermissionSubject = { apiGroup: string; kind: "User" | "ManagedServiceAccount"; name: string };

/** What a hub's ManagedClusterInfo says of a cluster, as the hub page shows it beside Fleetskew's own reading. */
export type ClusterInfoFacts = {
  version: string | null;
  desiredVersion: string | null;
  upgradeFailed: boolean;
  nodes: number | null;
  readyNodes: number | null;
};

export type MemberVerdict = {
  name: string;
  state: HubClusterState;
  eligibility: Eligibility;
  reason: string | null;
  clusterSet: string | null;
  /** The hub's labels, as Fleetskew labels (the hub's keys), plus the hub the cluster came from. */
  labels: Record<string, string>;
  /** ClusterVersion spec.clusterID as the hub reports it (claim id.openshift.io). */
  openshiftClusterId: string | null;
  platform: string | null;
  /** Whether Fleetskew's ClusterPermission should exist on this cluster now. */
  wantsPermission: boolean;
};

/** A version string from the hub, or null: anything else (a hostile or broken hub) is not shown. */
const versionText = (v: unknown) => (typeof v === "string" && /^[\w.+-]{1,64}$/.test(v) ? v : null);

/**
 * The ManagedClusterInfo facts of a cluster (MOF pkg/klusterlet/clusterinfo: distributionInfo.ocp
 * and nodeList; `desired.version` supersedes the deprecated `desiredVersion`). The agent refreshes
 * them every 5 minutes, so they may lag what Fleetskew reads from the cluster itself.
 */
export function clusterInfoFacts(info: ClusterInfoObject | undefined): ClusterInfoFacts {
  const ocp = info?.status?.distributionInfo?.type === "OCP" ? info.status.distributionInfo.ocp : undefined;
  const nodes = Array.isArray(info?.status?.nodeList) ? info.status.nodeList : null;
  return {
    version: versionText(ocp?.version),
    desiredVersion: versionText(ocp?.desired?.version ?? ocp?.desiredVersion),
    upgradeFailed: ocp?.upgradeFailed === true,
    nodes: nodes ? nodes.length : null,
    readyNodes: nodes ? nodes.filter((n) => conditionOf(n?.conditions, "Ready")?.status === "True").length : null,
  };
}

const conditionOf = (conditions: Condition[] | undefined, type: string) => conditions?.find((c) => c.type === type);
const claimOf = (mc: ManagedClusterObject, name: string) => mc.status?.clusterClaims?.find((c) => c.name === name)?.value ?? null;

/** Fleetskew's labels for a hub cluster: the hub's own (Kubernetes label syntax already), and where it came from. */
export function labelsOf(mc: ManagedClusterObject, hub: string): Record<string, string> {
  // A hub's labels are Kubernetes labels; anything a Fleetskew label could not be is left out rather than trusted.
  const usable = Object.entries(mc.metadata?.labels ?? {}).filter(
    ([k, v]) => typeof v === "string" && /^[\w./-]{1,63}$/.test(k) && v.length <= 63 && k !== HUB_LABEL,
  );
  return { ...Object.fromEntries(usable), [HUB_LABEL]: hub };
}

/**
 * Whether two label sets hold the same labels, in whatever order: the database keeps labels as jsonb,
 * which gives keys back in its own order, so comparing their JSON text would call every cluster changed.
 */
export function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && b[k] === a[k]);
}

/** Whether a managed cluster's name can be a Fleetskew cluster's (DNS label; "import" is a route). */
export const usableClusterName = (name: string) => /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(name) && name !== "import";

/**
 * The first check a cluster fails, in the order a person fixes them: what it is (an OpenShift
 * cluster with its own control plane), whether the hub can reach it (joined and its lease fresh,
 * the cluster-proxy add-on available), and whether Fleetskew's rights there were applied.
 */
export function judgeMember(
  hub: string,
  mc: ManagedClusterObject,
  addOn: AddOnObject | undefined,
  permission: PermissionObject | undefined,
  more: { info?: ClusterInfoObject; serviceAccount?: ServiceAccountAccess } = {},
): MemberVerdict {
  const name = mc.metadata?.name ?? "";
  const labels = labelsOf(mc, hub);
  const clusterSet = mc.metadata?.labels?.[CLUSTER_SET_LABEL] ?? null;
  const available = conditionOf(mc.status?.conditions, "ManagedClusterConditionAvailable");
  const state: HubClusterState = mc.metadata?.deletionTimestamp
    ? "removed"
    : available && available.status !== "True"
      ? "lease-expired"
      : "available";
  const base = {
    name,
    state,
    clusterSet,
    labels,
    openshiftClusterId: claimOf(mc, "id.openshift.io"),
    platform: claimOf(mc, "platform.open-cluster-management.io"),
  };
  const verdict = (eligibility: Eligibility, reason: string | null, wantsPermission: boolean): MemberVerdict => ({
    ...base,
    eligibility,
    reason,
    wantsPermission,
  });

  // The product claim first; before the agent reports claims, the vendor label or ManagedClusterInfo's distribution.
  const product =
    claimOf(mc, "product.open-cluster-management.io") ??
    mc.metadata?.labels?.vendor ??
    (more.info?.status?.distributionInfo?.type === "OCP" ? "OpenShift" : null);
  if (!product || !OPENSHIFT_PRODUCTS.includes(product))
    return verdict(
      "not-openshift",
      product
        ? `it runs ${product}, not OpenShift: there is no Machine Config Operator to follow`
        : "the hub does not report its product yet",
      false,
    );
  if (claimOf(mc, "controlplanetopology.openshift.io") === "External")
    return verdict(
      "hosted-control-plane",
      "a hosted control plane: its MachineSets and MCO live on the management cluster, not here",
      false,
    );
  if (state === "removed") return verdict("unavailable", "being deleted from the hub", false);
  if (!available || available.status !== "True")
    return verdict(
      "unavailable",
      available?.message ? `the hub cannot reach it: ${available.message}` : "it has not joined the hub yet",
      true,
    );
  const addOnAvailable = conditionOf(addOn?.status?.conditions, "Available");
  if (addOnAvailable?.status !== "True")
    return verdict(
      "proxy-addon-unavailable",
      addOn
        ? `the cluster-proxy add-on is not available${addOnAvailable?.message ? `: ${addOnAvailable.message}` : ""}`
        : "the cluster-proxy add-on is not installed",
      true,
    );
  const sa = more.serviceAccount;
  if (sa) {
    const saAddOn = conditionOf(sa.addOn?.status?.conditions, "Available");
    if (saAddOn?.status !== "True")
      return verdict(
        "permissions-pending",
        sa.addOn
          ? `the managed-serviceaccount add-on is not available, so the cluster cannot issue Fleetskew a token${saAddOn?.message ? `: ${saAddOn.message}` : ""}`
          : "the managed-serviceaccount add-on is not installed, so the cluster cannot issue Fleetskew a token",
        true,
      );
  }
  const applied = conditionOf(permission?.status?.conditions, "AppliedRBACManifestWork");
  if (applied?.status !== "True") {
    const validation = conditionOf(permission?.status?.conditions, "Validation");
    const why = validation?.status === "False" ? validation.message : applied?.message;
    return verdict("permissions-pending", `Fleetskew's ClusterPermission is not applied yet${why ? `: ${why}` : ""}`, true);
  }
  if (sa && !sa.tokenReported) {
    const reported = conditionOf(sa.account?.status?.conditions, "TokenReported");
    return verdict(
      "permissions-pending",
      reported?.status === "False"
        ? `the cluster could not report the token of Fleetskew's ManagedServiceAccount: ${reported.message ?? reported.reason ?? "no reason given"}`
        : "waiting for the cluster to report the token of Fleetskew's ManagedServiceAccount",
      true,
    );
  }
  return verdict("eligible", null, true);
}

/** The user a ClusterPermission binds: the proxy's hub identity, which on the hub itself carries no `cluster:hub:` prefix (docs/acm.md §2). */
export function impersonatedSubject(cluster: string, impersonatedUser: string): string {
  return cluster === LOCAL_CLUSTER ? impersonatedUser.replace(/^cluster:hub:/, "") : impersonatedUser;
}

/**
 * Whom Fleetskew's ClusterPermission on `cluster` binds: with impersonation, the proxy's identity
 * there; without, Fleetskew's ManagedServiceAccount, which the cluster-permission controller turns
 * into the ServiceAccount the agent created (it knows the subject by kind and API group both).
 */
export function permissionSubject(
  cluster: string,
  access: { mode: "impersonation"; user: string } | { mode: "managed-service-account"; account: string },
): PermissionSubject {
  return access.mode === "impersonation"
    ? { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: impersonatedSubject(cluster, access.user) }
    : { apiGroup: "authentication.open-cluster-management.io", kind: "ManagedServiceAccount", name: access.account };
}

/**
 * What a failed read through a hub's cluster-proxy means (docs/acm.md §2): the user-server answers
 * 401 when neither the cluster nor the hub accepts the token, the managed cluster's API server 403
 * until Fleetskew's ClusterPermission is applied there, and 502 when the tunnel to it is down.
 */
export function proxiedFailure(error: string, access: "impersonation" | "managed-service-account" = "impersonation"): string {
  if (/\(401\)|\b401\b/.test(error))
    return access === "impersonation"
      ? `the hub's cluster-proxy refused Fleetskew's proxy token (401): check the token registered with the hub`
      : `the cluster refused the token of Fleetskew's ManagedServiceAccount (401): the next hub sync reads the current one`;
  if (/answered 502|\b502\b/.test(error)) return `the hub cannot reach this cluster through its cluster-proxy (502): ${error}`;
  if (/forbidden|\(403\)/.test(error)) return `the hub has not applied Fleetskew's ClusterPermission on this cluster (403): ${error}`;
  return error;
}
