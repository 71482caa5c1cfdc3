import { invalidateFleetList } from "../fleet/fleetList";
import {
  judgeMember,
  permissionSubject,
  usableClusterName,
  type AddOnObject,
  type ManagedClusterObject,
  type PermissionObject,
} from "../domain/hubEligibility";
import { HUB_KINDS, HubClient, PERMISSION_NAME, PROXY_ADDON } from "../kube/hub";
import type { ClusterCredentials } from "../kube/credentials";
import { openSecret, sealSecret } from "../secrets/keyring";
import { sealCredentials } from "../clusters/registration";
import {
  applyHubSync,
  hubClusterState,
  recordHubSyncFailure,
  type HubMemberRecord,
  type HubRecord,
  type HubSyncWrite,
} from "../store/hubs";
import type { NewCluster } from "../store/clusters";

/** What registering a hub takes besides its name and URLs; sealed at rest, never sent back. */
export type HubSecrets = {
  ca: string;
  readerToken: string;
  proxyCa: string;
  proxyToken: string;
  /** The user the proxy's identity becomes on a managed cluster: the subject of every ClusterPermission. */
  proxyImpersonatedUser: string;
};

/** The context a hub's secrets are sealed under: bound to its name. */
export const hubSecretsContext = (hub: string) => `hub:${hub}`;
const secretsContext = hubSecretsContext;
export const sealHubSecrets = (hub: string, secrets: HubSecrets) => sealSecret(JSON.stringify(secrets), secretsContext(hub));
export async function openHubSecrets(hub: HubRecord): Promise<HubSecrets> {
  return JSON.parse((await openSecret(hub.sealed, secretsContext(hub.name))).toString("utf8")) as HubSecrets;
}

/** How Fleetskew reaches one of a hub's clusters: the hub's cluster-proxy, under the proxy's identity. */
export const proxiedCredentials = (proxyUrl: string, cluster: string, secrets: HubSecrets): ClusterCredentials => ({
  server: `${proxyUrl.replace(/\/$/, "")}/${cluster}`,
  token: secrets.proxyToken,
  certificateAuthority: secrets.proxyCa,
  insecureSkipTlsVerify: false,
});

export type SyncResult = {
  members: number;
  registered: number;
  changed: number;
  permissionsCreated: number;
  /** Where watches continue from, per kind. */
  resourceVersions: { managedClusters: string; addOns: string; permissions: string };
};

const byNamespace = <T extends { metadata?: { namespace?: string; name?: string } }>(items: T[], name: string) =>
  new Map(items.filter((i) => i.metadata?.name === name && i.metadata.namespace).map((i) => [i.metadata!.namespace!, i]));

/** Runs `work` over `items` with at most `limit` at once. */
export async function bounded<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/**
 * One full look at a hub: lists its managed clusters, their cluster-proxy add-ons and Fleetskew's
 * ClusterPermissions, creates the permissions still missing, and brings the hub's members and
 * clusters in the database in step (new eligible clusters registered, lease-expired ones paused,
 * deleted ones marked removed with their history kept).
 */
export async function syncHub(hub: HubRecord, client?: HubClient): Promise<SyncResult> {
  const secrets = await openHubSecrets(hub);
  const own = client ?? new HubClient({ apiUrl: hub.apiUrl, ca: secrets.ca, readerToken: secrets.readerToken });
  try {
    const [clusters, addOns, permissions] = await Promise.all([
      own.list(HUB_KINDS.managedCluster),
      own.list(HUB_KINDS.managedClusterAddOn),
      own.list(HUB_KINDS.clusterPermission),
    ]);
    const addOnOf = byNamespace(addOns.items as AddOnObject[], PROXY_ADDON);
    const permissionOf = byNamespace(permissions.items as PermissionObject[], PERMISSION_NAME);
    const verdicts = (clusters.items as ManagedClusterObject[])
      .filter((mc) => typeof mc.metadata?.name === "string")
      .map((mc) => judgeMember(hub.name, mc, addOnOf.get(mc.metadata!.name!), permissionOf.get(mc.metadata!.name!)));

    // Rights on each cluster the hub can reach; the hub applies them a little later (permissions-pending until then).
    const missing = verdicts.filter((v) => v.wantsPermission && v.state !== "removed" && !permissionOf.has(v.name));
    let permissionsCreated = 0;
    await bounded(missing, 16, async (v) => {
      if ((await own.createPermission(v.name, permissionSubject(v.name, secrets.proxyImpersonatedUser))) === "created")
        permissionsCreated++;
    });

    const state = await hubClusterState(
      hub.id,
      verdicts.map((v) => v.name),
    );
    const members: HubMemberRecord[] = [];
    const register: NewCluster[] = [];
    const change: HubSyncWrite["change"] = [];
    const seen = new Set<string>();
    for (const v of verdicts) {
      seen.add(v.name);
      const taken = state.takenByOthers.has(v.name) || !usableClusterName(v.name);
      const eligibility = taken && v.eligibility === "eligible" ? "name-taken" : v.eligibility;
      const reason =
        eligibility === "name-taken"
          ? usableClusterName(v.name)
            ? `a cluster named ${v.name} is already registered in Fleetskew some other way`
            : `${v.name} cannot be a Fleetskew cluster name (lower-case letters, digits and dashes, at most 63)`
          : v.reason;
      const mine = state.own.get(v.name);
      members.push({
        name: v.name,
        state: v.state,
        eligibility,
        reason,
        clusterSet: v.clusterSet,
        labels: v.labels,
        registeredAs: mine ? v.name : eligibility === "eligible" ? v.name : null,
      });
      if (mine) {
        // The hub registered again at another proxy URL (or with new credentials): its clusters follow.
        const expected = proxiedCredentials(hub.proxyUrl, v.name, secrets);
        const reach =
          mine.apiUrl !== expected.server
            ? { apiUrl: expected.server, encryptedCredentials: await sealCredentials(v.name, expected) }
            : undefined;
        if (reach || mine.hubState !== v.state || JSON.stringify(mine.labels) !== JSON.stringify(v.labels))
          change.push({ name: v.name, hubState: v.state, labels: v.labels, reach });
      } else if (eligibility === "eligible") {
        const credentials = proxiedCredentials(hub.proxyUrl, v.name, secrets);
        register.push({
          name: v.name,
          displayName: v.name,
          labels: v.labels,
          platform: v.platform,
          apiUrl: credentials.server,
          encryptedCredentials: await sealCredentials(v.name, credentials),
          openshiftClusterId: v.openshiftClusterId,
          hubId: hub.id,
          hubState: "available",
        });
      }
    }
    // Gone from the hub: removed, history kept, never swept again.
    for (const [name, mine] of state.own) {
      if (seen.has(name)) continue;
      members.push({
        name,
        state: "removed",
        eligibility: "unavailable",
        reason: "deleted from the hub",
        clusterSet: mine.labels["cluster.open-cluster-management.io/clusterset"] ?? null,
        labels: mine.labels,
        registeredAs: name,
      });
      if (mine.hubState !== "removed") change.push({ name, hubState: "removed", labels: mine.labels });
    }
    await applyHubSync(hub.id, { members, register, change }, { actor: `hub:${hub.name}`, role: "system" });
    if (register.length > 0 || change.length > 0) invalidateFleetList();
    return {
      members: members.length,
      registered: register.length,
      changed: change.length,
      permissionsCreated,
      resourceVersions: {
        managedClusters: clusters.resourceVersion,
        addOns: addOns.resourceVersion,
        permissions: permissions.resourceVersion,
      },
    };
  } catch (error) {
    await recordHubSyncFailure(hub.id, (error as Error).message).catch(() => undefined);
    throw error;
  } finally {
    if (!client) own.close();
  }
}
