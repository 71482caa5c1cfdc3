import { KubeError } from "../kube/client";
import type { ClusterInfoObject } from "../domain/hubEligibility";
import { HUB_KINDS, HubClient, type WatchEvent } from "../kube/hub";
import { RELIST_BACKOFF, relistDelayMs } from "../kube/limits";
import { findHubRecord, listHubRecords, recordHubSyncFailure, type HubRecord } from "../store/hubs";
import { infoDigest, openHubSecrets, syncFailureText, syncHub } from "./sync";

/**
 * Follows every registered hub for one term: a full sync (list and apply) first, then watches of
 * ManagedClusters, their info and add-ons, Fleetskew's ClusterPermissions (and ManagedServiceAccounts,
 * whose status changes when a token is reported or rotated) from the versions that list returned.
 * An event brings another sync a moment later (events come in bursts), a 410 Gone
 * (the watch fell too far behind) or a watch that ends brings a relist, after a wait that grows while
 * watches keep ending soon after they start (RELIST_BACKOFF): a hub that closes every watch at once,
 * again and again, costs a full sync every 30 to 60 s at most, never one per close. A term is one resync: the
 * background job (server/runtime/background.ts) runs terms back to back in whichever process holds
 * its lease, so exactly one process watches a hub at a time and another takes over if it dies.
 */
export type FollowOptions = {
  /** How long a term lasts: every term starts with a full list. */
  termMs: number;
  /** How long after an event the sync runs, so that a burst costs one. */
  debounceMs: number;
  /** Before a failed hub is tried again within the term. */
  retryMs: number;
};

const isInfo = (o: unknown) => (o as { kind?: string })?.kind === HUB_KINDS.managedClusterInfo.kind;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

/** Syncs one hub now, at most once at a time per hub in this process (a second caller waits for the running one, then runs). */
const running = new Map<string, Promise<unknown>>();
export function syncHubSerially(hub: HubRecord, client?: HubClient) {
  const previous = running.get(hub.id) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(() => syncHub(hub, client));
  running.set(hub.id, next);
  void next.finally(() => running.get(hub.id) === next && running.delete(hub.id)).catch(() => undefined);
  return next;
}

async function followHub(hub: HubRecord, options: FollowOptions, signal: AbortSignal): Promise<void> {
  const secrets = await openHubSecrets(hub);
  const client = new HubClient({ apiUrl: hub.apiUrl, ca: secrets.ca, readerToken: secrets.readerToken });
  // Relists in a row whose watches ended within RELIST_BACKOFF.resetAfterMs of starting.
  let quickRelists = 0;
  try {
    while (!signal.aborted) {
      let versions;
      let digests: Map<string, string>;
      try {
        ({ resourceVersions: versions, infoDigests: digests } = await syncHubSerially(hub, client));
      } catch (error) {
        // Removed while followed: nothing more to do for it.
        if (!(await findHubRecord(hub.name).catch(() => hub))) return;
        console.error(`fleetskew: hub ${hub.name}: ${(error as Error).message}`);
        await sleep(options.retryMs, signal);
        continue;
      }
      // Watch until the term ends or a watch needs a relist.
      const relist = new AbortController();
      const stop = () => relist.abort();
      signal.addEventListener("abort", stop, { once: true });
      let pending: ReturnType<typeof setTimeout> | null = null;
      const onEvent = (event: WatchEvent) => {
        if (event.type === "BOOKMARK" || pending) return;
        if (event.type === "MODIFIED" && isInfo(event.object)) {
          // The agent rewrites every ManagedClusterInfo every few minutes; only a change in what Fleetskew reads is worth a sync.
          const name = (event.object as ClusterInfoObject).metadata?.namespace ?? "";
          const digest = infoDigest(event.object as ClusterInfoObject);
          if (digests.get(name) === digest) return;
          digests.set(name, digest);
        }
        pending = setTimeout(() => {
          pending = null;
          syncHubSerially(hub, client).catch((error) => console.error(`fleetskew: hub ${hub.name}: ${(error as Error).message}`));
        }, options.debounceMs);
      };
      const watched = [
        [HUB_KINDS.managedCluster, versions.managedClusters],
        [HUB_KINDS.managedClusterAddOn, versions.addOns],
        [HUB_KINDS.clusterPermission, versions.permissions],
        [HUB_KINDS.managedClusterInfo, versions.infos],
        [HUB_KINDS.managedServiceAccount, versions.serviceAccounts],
      ] as const;
      const watches = watched
        // A kind the hub does not serve, or that this hub's access does not use, was not listed ("").
        .filter(([, version]) => version !== "")
        .map(([kind, version]) => client.watch(kind, version, onEvent, relist.signal))
        .map((w) =>
          w.then(
            () => relist.abort(),
            (error) => {
              // A 410 is the relist it asks for; a watch cut because the term ended or another watch relists is no failure.
              if (!(error instanceof KubeError && error.status === 410) && !relist.signal.aborted)
                console.error(`fleetskew: hub ${hub.name}: ${(error as Error).message}`);
              relist.abort();
            },
          ),
        );
      const watchedSince = Date.now();
      await Promise.all(watches);
      signal.removeEventListener("abort", stop);
      if (pending) clearTimeout(pending);
      if (signal.aborted) break;
      quickRelists = Date.now() - watchedSince >= RELIST_BACKOFF.resetAfterMs ? 0 : quickRelists + 1;
      await sleep(relistDelayMs(Math.max(0, quickRelists - 1)), signal);
    }
  } catch (error) {
    await recordHubSyncFailure(hub.id, syncFailureText(hub, error)).catch(() => undefined);
  } finally {
    client.close();
  }
}

/**
 * One term of following every hub; resolves when the term is over. A hub registered during the term
 * is followed within `lookForNewHubsMs`: that first sync is its first after registration.
 */
export async function followHubs(options: FollowOptions & { lookForNewHubsMs?: number }): Promise<void> {
  const term = new AbortController();
  const timer = setTimeout(() => term.abort(), options.termMs);
  const followed = new Map<string, Promise<void>>();
  try {
    while (!term.signal.aborted) {
      for (const hub of await listHubRecords()) if (!followed.has(hub.id)) followed.set(hub.id, followHub(hub, options, term.signal));
      // Nothing to follow: end the term, the background job looks again shortly.
      if (followed.size === 0) break;
      await sleep(options.lookForNewHubsMs ?? 2_000, term.signal);
    }
    await Promise.all(followed.values());
  } finally {
    clearTimeout(timer);
  }
}
