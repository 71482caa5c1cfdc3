import * as k8s from "@kubernetes/client-node";
import { boundedApiClient } from "./boundedHttp";
import { classify, ClusterClient, collectPages, KubeError, type KindRef, type ListPage } from "./client";
import { DEFAULT_LIST_LIMITS, ReadBudget, type ListLimits } from "./limits";
import { streamWatch } from "./watchStream";
import type { PermissionSubject } from "../domain/hubEligibility";
import type { ClusterCredentials } from "./credentials";
import { KINDS, QUERIER_ACCESS, READS } from "./kinds";
import { kubeConfigFor, requestOptions } from "./clientConfig";

/**
 * An ACM hub's API as Fleetskew uses it (docs/acm.md): list and watch the managed clusters, their
 * info and add-ons, Fleetskew's ClusterPermissions and ManagedServiceAccounts, read those accounts'
 * token Secrets, and create or delete what Fleetskew owns.
 */
const hubRef = (group: string, version: string, kind: string, plural: string, namespaced: boolean): KindRef => ({
  group,
  version,
  kind,
  plural,
  namespaced,
});

export const HUB_KINDS = {
  managedCluster: hubRef("cluster.open-cluster-management.io", "v1", "ManagedCluster", "managedclusters", false),
  managedClusterAddOn: hubRef("addon.open-cluster-management.io", "v1alpha1", "ManagedClusterAddOn", "managedclusteraddons", true),
  managedClusterInfo: hubRef("internal.open-cluster-management.io", "v1beta1", "ManagedClusterInfo", "managedclusterinfos", true),
  clusterPermission: hubRef("rbac.open-cluster-management.io", "v1alpha1", "ClusterPermission", "clusterpermissions", true),
  managedServiceAccount: hubRef(
    "authentication.open-cluster-management.io",
    "v1beta1",
    "ManagedServiceAccount",
    "managedserviceaccounts",
    true,
  ),
  multiClusterEngine: hubRef("multicluster.openshift.io", "v1", "MultiClusterEngine", "multiclusterengines", false),
} as const;

/** The ClusterPermission (and, on hubs without impersonation, the ManagedServiceAccount) Fleetskew keeps in each cluster namespace. */
export const PERMISSION_NAME = "fleetskew";
export const SERVICE_ACCOUNT_NAME = "fleetskew";
export const PROXY_ADDON = "cluster-proxy";
export const SERVICE_ACCOUNT_ADDON = "managed-serviceaccount";
/** The label the managed-serviceaccount agent puts on every token Secret it writes (MSA pkg/common/constants.go). */
export const SERVICE_ACCOUNT_SECRET_LABEL = "authentication.open-cluster-management.io/is-managed-serviceaccount";
const MANAGED_BY = { "app.kubernetes.io/managed-by": "fleetskew" };

export type HubCredentials = {
  apiUrl: string;
  ca: string;
  readerToken: string;
};

export type HubListing = { items: unknown[]; resourceVersion: string };
/** A hub Secret as the sync reads it: where it is, which version, and its data (base64). */
export type HubSecret = {
  metadata?: { namespace?: string; name?: string; uid?: string; resourceVersion?: string };
  data?: Record<string, string>;
};
/** A Secret as the sync keeps it (whatever else the hub put in it is dropped as the page arrives). */
function secretFacts(item: unknown): HubSecret {
  const s = item as HubSecret | null;
  const text = (v: unknown) => (typeof v === "string" ? v : undefined);
  const token = text(s?.data?.token);
  return {
    metadata: {
      namespace: text(s?.metadata?.namespace),
      name: text(s?.metadata?.name),
      uid: text(s?.metadata?.uid),
      resourceVersion: text(s?.metadata?.resourceVersion),
    },
    ...(token !== undefined ? { data: { token } } : {}),
  };
}
export type WatchEvent = { type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK"; object: unknown };

/** The rules Fleetskew needs on a managed cluster: what the collector reads, and what the workflows write. */
export function managedClusterRules(): { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] }[] {
  const rules = READS.map((r) => {
    const kind = KINDS[r.kind];
    return { apiGroups: [kind.group], resources: [kind.plural], verbs: [...r.verbs], ...(r.names ? { resourceNames: r.names } : {}) };
  });
  // What the Thanos querier asks before it answers the alerts. A ClusterRole names no namespace: the
  // grant holds for a Prometheus of that name in any namespace, as cluster-monitoring-view's does.
  const querier = {
    apiGroups: [QUERIER_ACCESS.group],
    resources: [QUERIER_ACCESS.resource],
    verbs: [...QUERIER_ACCESS.verbs],
    resourceNames: [...QUERIER_ACCESS.names],
  };
  return [
    ...rules,
    querier,
    { apiGroups: [""], resources: ["pods"], verbs: ["list"] },
    {
      apiGroups: [KINDS.pinnedImageSet.group],
      resources: [KINDS.pinnedImageSet.plural],
      verbs: ["get", "list", "create", "update", "delete"],
    },
    {
      apiGroups: [KINDS.machineConfiguration.group],
      resources: [KINDS.machineConfiguration.plural],
      verbs: ["get", "patch", "update"],
      resourceNames: ["cluster"],
    },
    {
      apiGroups: [KINDS.clusterVersion.group],
      resources: [KINDS.clusterVersion.plural],
      verbs: ["get", "patch", "update"],
      resourceNames: ["version"],
    },
  ];
}

/** Fleetskew's ClusterPermission for one cluster: a ClusterRole of managedClusterRules bound to Fleetskew's identity there. */
export function clusterPermission(cluster: string, subject: PermissionSubject): object {
  return {
    apiVersion: `${HUB_KINDS.clusterPermission.group}/${HUB_KINDS.clusterPermission.version}`,
    kind: "ClusterPermission",
    metadata: { name: PERMISSION_NAME, namespace: cluster, labels: MANAGED_BY },
    spec: {
      clusterRole: { rules: managedClusterRules() },
      clusterRoleBinding: { name: PERMISSION_NAME, subject },
    },
  };
}

/**
 * Fleetskew's ManagedServiceAccount on one cluster: the managed-serviceaccount agent creates a
 * ServiceAccount of this name there and reports its token to the hub in a Secret of the same
 * namespace; the token rotates on the agent's schedule (validity left at its default, 8640h).
 */
export function managedServiceAccount(cluster: string): object {
  return {
    apiVersion: `${HUB_KINDS.managedServiceAccount.group}/${HUB_KINDS.managedServiceAccount.version}`,
    kind: "ManagedServiceAccount",
    metadata: { name: SERVICE_ACCOUNT_NAME, namespace: cluster, labels: MANAGED_BY },
    spec: { rotation: {} },
  };
}

export class HubClient {
  private readonly kc: k8s.KubeConfig;
  private readonly custom: k8s.CustomObjectsApi;
  private readonly core: k8s.CoreV1Api;
  private readonly reader: ClusterClient;
  /** What the current sync has read from the hub (MAX_READ_BYTES); `startRead` begins a new one. */
  private readonly budget = new ReadBudget("hub");

  constructor(
    hub: HubCredentials,
    private readonly timeoutMs = 30_000,
    /** How far one list may go (server/kube/limits.ts); tests narrow them. */
    private readonly listLimits: ListLimits = DEFAULT_LIST_LIMITS,
  ) {
    const credentials: ClusterCredentials = {
      server: hub.apiUrl,
      token: hub.readerToken,
      certificateAuthority: hub.ca,
      insecureSkipTlsVerify: false,
    };
    this.kc = kubeConfigFor(credentials);
    this.custom = boundedApiClient(this.kc, k8s.CustomObjectsApi);
    this.core = boundedApiClient(this.kc, k8s.CoreV1Api);
    this.reader = new ClusterClient(credentials, { timeoutMs, retries: 2, retryDelayMs: 500 });
  }

  close(): void {
    this.budget.release();
    this.reader.close();
  }

  /**
   * Every object of a kind across namespaces, page by page, with the resourceVersion a watch continues
   * from. `keep` takes what the caller reads of each page as it arrives, so a hub's pages cost no more
   * than that, however much else they carry.
   */
  async list(ref: KindRef, keep?: (items: unknown[]) => unknown[], pageSize = 500): Promise<HubListing> {
    return collectPages(
      `${ref.kind} list`,
      "hub",
      this.listLimits,
      (token, onAnswer) =>
        this.call(
          `${ref.kind} list`,
          () =>
            this.custom.listClusterCustomObject(
              { group: ref.group, version: ref.version, plural: ref.plural, limit: pageSize, _continue: token },
              this.options(onAnswer),
            ) as Promise<ListPage>,
        ),
      keep,
    );
  }

  /** Whether the reader can list managed clusters: what registering a hub checks first. */
  async check(): Promise<number> {
    const page = (await this.call("ManagedCluster list", () =>
      this.custom.listClusterCustomObject({ ...HUB_KINDS.managedCluster, limit: 1 }, this.options()),
    )) as { items?: unknown[] };
    if (!Array.isArray(page?.items)) throw new KubeError("malformed", "the hub's answer to the ManagedCluster list has no items");
    return page.items.length;
  }

  /** The MultiClusterEngine's version (status.currentVersion), or null when the hub serves none (plain open-cluster-management). */
  async engineVersion(): Promise<string | null> {
    try {
      const { items } = await this.list(HUB_KINDS.multiClusterEngine);
      const version = (items[0] as { status?: { currentVersion?: unknown } } | undefined)?.status?.currentVersion;
      return typeof version === "string" ? version : null;
    } catch (error) {
      if (error instanceof KubeError && error.kind === "not-served") return null;
      throw error;
    }
  }

  /** Every token Secret the managed-serviceaccount agent wrote, across cluster namespaces. */
  async serviceAccountSecrets(pageSize = 500): Promise<HubSecret[]> {
    const { items } = await collectPages(
      "Secret list",
      "hub",
      this.listLimits,
      (token, onAnswer) =>
        this.call(
          "Secret list",
          () =>
            this.core.listSecretForAllNamespaces(
              // By name as well: a reader whose RBAC names only the `fleetskew` Secrets (deploy/hub) may list
              // them only with this field selector; the label alone would be a 403.
              {
                labelSelector: `${SERVICE_ACCOUNT_SECRET_LABEL}=true`,
                fieldSelector: `metadata.name=${SERVICE_ACCOUNT_NAME}`,
                limit: pageSize,
                _continue: token,
              },
              this.options(onAnswer),
            ) as Promise<ListPage>,
        ),
      // Of each Secret only where it is, its version and the token: the rest of its data is never held.
      (page) => page.map(secretFacts),
    );
    return items as HubSecret[];
  }

  /** Creates one of Fleetskew's objects in a cluster's namespace; one that is already there is left as it is. */
  async createIn(ref: KindRef, cluster: string, body: object): Promise<"created" | "exists"> {
    const name = (body as { metadata: { name: string } }).metadata.name;
    try {
      await this.call(`create ${ref.kind} ${cluster}/${name}`, () =>
        this.custom.createNamespacedCustomObject(
          { group: ref.group, version: ref.version, plural: ref.plural, namespace: cluster, body },
          this.options(),
        ),
      );
      return "created";
    } catch (error) {
      if (error instanceof KubeError && error.kind === "conflict") return "exists";
      throw error;
    }
  }

  /** Deletes one of Fleetskew's objects from a cluster's namespace; one already gone (or a kind not served) is fine. */
  async deleteFrom(ref: KindRef, cluster: string, name: string): Promise<void> {
    try {
      await this.call(`delete ${ref.kind} ${cluster}/${name}`, () =>
        this.custom.deleteNamespacedCustomObject(
          { group: ref.group, version: ref.version, plural: ref.plural, namespace: cluster, name },
          this.options(),
        ),
      );
    } catch (error) {
      if (!(error instanceof KubeError && (error.kind === "not-found" || error.kind === "not-served"))) throw error;
    }
  }

  /**
   * Watches a kind from `resourceVersion` until the server ends the watch or `signal` aborts.
   * Resolves with the last resourceVersion seen; rejects with a KubeError whose status is 410 when
   * the version is too old (the caller lists again).
   */
  watch(ref: KindRef, resourceVersion: string, onEvent: (event: WatchEvent) => void, signal: AbortSignal): Promise<string> {
    let last = resourceVersion;
    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = (fn: () => void) => {
        if (!settled) {
          settled = true;
          fn();
        }
      };
      const path = `/apis/${ref.group}/${ref.version}/${ref.plural}`;
      // Stops reading once the watch has failed (an ERROR event), as the server may keep the stream open.
      const stop = new AbortController();
      const onLine = ({ type, object }: { type?: string; object?: unknown }) => {
        const o = object as { code?: number; message?: string; metadata?: { resourceVersion?: string } } | undefined;
        if (type === "ERROR") {
          settle(() =>
            reject(
              o?.code === 410
                ? new KubeError(
                    "server-error",
                    `the hub's ${ref.kind} watch expired: ${String(o.message ?? "410 Gone").slice(0, 300)}`,
                    410,
                  )
                : classify({ code: typeof o?.code === "number" ? o.code : 500, body: o }, `${ref.kind} watch`),
            ),
          );
          stop.abort();
          return;
        }
        // Bookmarks carry only the version (real API servers send them without a name).
        if (typeof o?.metadata?.resourceVersion === "string") last = o.metadata.resourceVersion;
        if (type === "ADDED" || type === "MODIFIED" || type === "DELETED" || type === "BOOKMARK") onEvent({ type, object });
      };
      const abort = () => stop.abort();
      if (signal.aborted) abort();
      else signal.addEventListener("abort", abort, { once: true });
      streamWatch(this.kc, path, { resourceVersion, allowWatchBookmarks: "true" }, (e) => settled || onLine(e), stop.signal)
        .then(
          () => settle(() => resolve(last)),
          // Ended by the caller: no failure, the watch simply stops where it was.
          (error) => settle(() => (signal.aborted ? resolve(last) : reject(classify(error, `${ref.kind} watch`)))),
        )
        .finally(() => signal.removeEventListener("abort", abort));
    });
  }

  /** Each call's deadline: the request is aborted when it passes, not left open behind a caller that gave up. */
  private options(onAnswer?: (bytes: number) => void) {
    return requestOptions(this.timeoutMs, undefined, undefined, onAnswer, this.budget);
  }

  /** Begins a new read of the hub (a sync): from here its answers count afresh against MAX_READ_BYTES. */
  startRead(): void {
    this.budget.restart();
  }

  /** Ends a read of the hub: what it read no longer counts against the process (MAX_PROCESS_READ_BYTES). */
  endRead(): void {
    this.budget.release();
  }

  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      const failure = classify(error, what);
      throw failure.kind === "timeout" ? new KubeError("timeout", `no answer from the hub for ${what} in time`) : failure;
    }
  }
}
