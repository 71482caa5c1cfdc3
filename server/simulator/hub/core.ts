import { defaultEnv, type ClusterSpec, type Fleet, type SimCluster, type SimEnv } from "../cluster";
import type { KindInfo } from "../kinds";
import { ObjectStore, type KubeObject } from "../objectStore";
import { coerce } from "../openapi/admission";
import { HUB_ADMIN_USER, HUB_PROXY_USER, HUB_READER_USER, newToken, READER_RULES, serviceAccountGroups } from "./identities";
import { HUB_KINDS } from "./kinds";
import {
  ADDON_INSTALL_NAMESPACE,
  LOCAL_CLUSTER,
  managedClusterSet,
  memberObjects,
  multiClusterEngine,
  type HubClusterProfile,
} from "./objects";
import type { ClusterIdentity, EffectiveBinding } from "./permissions";
import type { PolicyRule } from "./rbac";

export type HubTokens = { admin: string; reader: string; proxy: string };
export type HubIdentity = ClusterIdentity & { rules: PolicyRule[] };
export type HubOptions = {
  env?: SimEnv;
  /** How long the ClusterPermission controller and the work agent take to apply RBAC on the cluster. */
  permissionDelayMs?: number;
  /** How long the managed-serviceaccount agent takes to report a token. */
  serviceAccountDelayMs?: number;
  tokens?: Partial<HubTokens>;
  /** Events a watch can resume from; older resourceVersions get 410 (default: 1,000 or 2 per cluster, whichever is more). */
  eventLogSize?: number;
  /** How often a watch that allows bookmarks gets one (the API server sends them about once a minute). */
  bookmarkIntervalMs?: number;
  /** PEM the managed clusters' API serving certificates chain to (ManagedCluster caBundle, ManagedServiceAccount `ca.crt`). */
  managedCa?: string;
  /**
   * The MultiClusterEngine's version (status.currentVersion, default 2.9.0). Before 2.9 the
   * cluster-proxy's service-proxy does not impersonate hub users (docs/acm.md §2), so a hub
   * service account's token reaches no managed cluster but the hub itself.
   */
  mceVersion?: string;
  /**
   * Services the user-server lets through its service path (`…/services/<svc>/proxy-service/…`):
   * cluster-proxy's exposed-services allowlist, default-deny since open-cluster-management-io/cluster-proxy
   * 0e87c0b5 (docs/acm.md §2). Default here: the Thanos querier, as docs/acm.md tells hub admins to expose it.
   */
  exposedServices?: { namespace: string; service: string }[];
};

/** A managed cluster as the hub knows it, and the simulated cluster its agents run on (none: nothing to proxy to). */
export type HubMember = {
  profile: HubClusterProfile;
  backing?: SimCluster;
  leaseExpired: boolean;
  /** Imported but not joined yet: no agent, so nothing reaches the cluster. */
  joining?: boolean;
};
export type HubMemberInput = { profile: HubClusterProfile; backing?: ClusterSpec };

/**
 * The state of a simulated ACM hub and what its cluster-proxy asks of it: its objects in one
 * ObjectStore (served by hub/api.ts), its managed clusters and their simulated clusters, the tokens
 * it knows, and the RBAC each cluster has been given. SimHub (hub.ts) adds the controllers and
 * the controls.
 */
export class HubCore {
  readonly store: ObjectStore;
  readonly tokens: HubTokens;
  readonly env: SimEnv;
  permissionDelayMs: number;
  serviceAccountDelayMs: number;
  readonly bookmarkIntervalMs: number;
  /** PEM the managed clusters' API serving certificates chain to (a ManagedServiceAccount Secret's `ca.crt`). */
  readonly managedCa: string;
  protected readonly members = new Map<string, HubMember>();
  /** Per cluster, per ClusterPermission: the bindings its ManifestWork put on the cluster. */
  protected readonly applied = new Map<string, Map<string, EffectiveBinding[]>>();
  /** ManagedServiceAccount tokens the managed clusters accept, each until it expires (a rotated one stays valid until then). */
  protected readonly msaTokens = new Map<string, { cluster: string; name: string; expires: number }>();
  readonly mceVersion: string;
  exposedServices: { namespace: string; service: string }[];
  protected readonly identities = new Map<string, HubIdentity>();
  protected readonly timers = new Set<NodeJS.Timeout>();
  protected readonly intervals: NodeJS.Timeout[] = [];
  protected readonly offlineListeners = new Set<(cluster: string) => void>();

  constructor(
    readonly fleet: Fleet,
    initial: HubMemberInput[],
    options: HubOptions = {},
  ) {
    this.env = options.env ?? defaultEnv();
    this.permissionDelayMs = options.permissionDelayMs ?? 2000;
    this.serviceAccountDelayMs = options.serviceAccountDelayMs ?? 2000;
    this.managedCa = options.managedCa ?? "";
    this.bookmarkIntervalMs = options.bookmarkIntervalMs ?? 60_000;
    this.mceVersion = options.mceVersion ?? "2.9.0";
    this.exposedServices = options.exposedServices ?? [{ namespace: "openshift-monitoring", service: "thanos-querier" }];
    this.tokens = { admin: newToken(), reader: newToken(), proxy: newToken(), ...options.tokens };
    const all: PolicyRule = { apiGroups: ["*"], resources: ["*"], verbs: ["*"], nonResourceURLs: ["*"] };
    this.identities.set(this.tokens.admin, { user: HUB_ADMIN_USER, groups: ["system:masters", "system:authenticated"], rules: [all] });
    this.identities.set(this.tokens.reader, { user: HUB_READER_USER, groups: serviceAccountGroups(HUB_READER_USER), rules: READER_RULES });
    this.identities.set(this.tokens.proxy, { user: HUB_PROXY_USER, groups: serviceAccountGroups(HUB_PROXY_USER), rules: [] });

    // A real hub's watch cache keeps minutes of events; two per cluster keeps a large hub's watches
    // resumable through a burst (every cluster's ClusterPermission applied) without a relist storm.
    this.store = new ObjectStore({
      now: this.env.now,
      uid: this.env.uid,
      prune: coerce,
      eventLogSize: options.eventLogSize ?? Math.max(1000, 2 * initial.length),
    });
    const at = this.now();
    const sets = new Set(["default", "global", ...initial.map((m) => m.profile.clusterSet)]);
    for (const set of [...sets].sort()) this.store.seed(HUB_KINDS.managedClusterSet, managedClusterSet(set, this.env.uid(), at));
    this.store.seed(HUB_KINDS.multiClusterEngine, multiClusterEngine(this.env.uid(), at, this.mceVersion));
    for (const input of initial) {
      const member = this.admit(input);
      for (const [info, obj] of memberObjects(member.profile, () => this.env.uid(), this.managedCa)) this.store.seed(info, obj);
    }
    this.store.sealSeed();
  }

  protected now(): string {
    return this.env
      .now()
      .toISOString()
      .replace(/\.\d{3}Z$/, "Z");
  }

  protected admit({ profile, backing }: HubMemberInput): HubMember {
    if (this.members.has(profile.name)) throw new Error(`managed cluster "${profile.name}" already exists`);
    const cluster = backing ? (this.fleet.get(backing.name) ?? this.fleet.add(backing)) : undefined;
    const member: HubMember = { profile, backing: cluster, leaseExpired: false };
    this.members.set(profile.name, member);
    return member;
  }

  protected find(info: KindInfo, ns: string | undefined, name: string): KubeObject | undefined {
    try {
      return this.store.get(info, ns, name);
    } catch {
      return undefined;
    }
  }

  protected setStatus(info: KindInfo, obj: KubeObject, status: Record<string, unknown>): void {
    this.store.replace(info, obj.metadata.namespace, obj.metadata.name!, { ...obj, status }, "status");
  }

  protected later(ms: number, action: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      try {
        action();
      } catch (error) {
        // A controller that fails leaves the object as it was, as a real one would; the hub goes on.
        console.error("hub simulator: controller failed:", (error as Error).message);
      }
    }, ms);
    this.timers.add(timer);
  }

  // ---- what the proxy asks -------------------------------------------------------------------

  member(name: string): HubMember | undefined {
    return this.members.get(name);
  }

  memberNames(): string[] {
    return [...this.members.keys()];
  }

  /** Hub TokenReview: the identity of a hub token, with its hub RBAC. */
  hubIdentity(token: string): HubIdentity | undefined {
    return token ? this.identities.get(token) : undefined;
  }

  /** Adds a hub service account (e.g. a second Fleetskew), returning its token. */
  addServiceAccount(namespace: string, name: string, rules: PolicyRule[] = []): string {
    const token = newToken();
    const user = `system:serviceaccount:${namespace}:${name}`;
    this.identities.set(token, { user, groups: serviceAccountGroups(user), rules });
    return token;
  }

  /** Managed-cluster TokenReview for a ManagedServiceAccount token: the ServiceAccount it belongs to on `cluster`. */
  managedServiceAccountIdentity(cluster: string, token: string): ClusterIdentity | undefined {
    const owner = this.msaTokens.get(token);
    if (!owner || owner.cluster !== cluster || owner.expires <= this.env.now().getTime()) return undefined;
    const user = `system:serviceaccount:${ADDON_INSTALL_NAMESPACE}:${owner.name}`;
    return { user, groups: serviceAccountGroups(user) };
  }

  /** The RBAC the hub's ClusterPermissions have put on `cluster` so far. */
  bindingsOn(cluster: string): EffectiveBinding[] {
    return [...(this.applied.get(cluster)?.values() ?? [])].flat();
  }

  /** Called when a cluster's tunnel goes away, so that open proxied requests (watches) end as they would. */
  onOffline(listener: (cluster: string) => void): () => void {
    this.offlineListeners.add(listener);
    return () => this.offlineListeners.delete(listener);
  }

  /** Why no request reaches `cluster` through the proxy right now, or null when its proxy-agent is connected. */
  tunnelDown(cluster: string): string | null {
    const m = this.members.get(cluster);
    if (!m) return `no managed cluster named ${cluster}`;
    if (m.leaseExpired) return `the agent of ${cluster} stopped updating its lease`;
    if (m.joining) return `${cluster} has not joined the hub yet`;
    if (!m.profile.proxyAddOnAvailable) return `the cluster-proxy add-on of ${cluster} is not available`;
    if (!m.backing) return `no proxy-agent of ${cluster} is connected`;
    return null;
  }

  /** Whether the service-proxy impersonates hub users on managed clusters: MCE 2.9 and later (docs/acm.md §2). */
  get impersonation(): boolean {
    const [major, minor] = this.mceVersion.split(".").map(Number);
    return major! > 2 || (major === 2 && minor! >= 9);
  }

  /** Whether `name` is the hub itself (the proxy's managed-cluster TokenReview there is the hub's own). */
  isLocalCluster(name: string): boolean {
    return name === LOCAL_CLUSTER;
  }

  close(): void {
    this.intervals.forEach((t) => clearInterval(t));
    this.timers.forEach((t) => clearTimeout(t));
    this.timers.clear();
  }
}
