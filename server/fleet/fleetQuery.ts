import type { FleetCursor, FleetFilter, FleetSort } from "../store/fleetWindow";
import { FleetListQuerySchema, type FleetListQuery, type FleetListQueryInput } from "./requestContract";

/** Labels a cluster onboarded from an ACM hub carries: the hub's name and the cluster's set. */
export const HUB_LABEL = "fleetskew.io/hub";
export const CLUSTER_SET_LABEL = "cluster.open-cluster-management.io/clusterset";

export { FleetListQuerySchema, type FleetListQuery, type FleetListQueryInput };

export const encodeCursor = (c: FleetCursor) => Buffer.from(JSON.stringify([c.value, c.name])).toString("base64url");

export function filterOf(q: FleetListQuery): FleetFilter {
  const labels = [...(q.label ?? [])];
  if (q.hub) labels.push({ key: HUB_LABEL, value: q.hub });
  if (q.clusterSet) labels.push({ key: CLUSTER_SET_LABEL, value: q.clusterSet });
  return {
    search: q.q,
    names: q.name,
    platform: q.platform,
    minor: q.version,
    skew: q.skew,
    mode: q.mode,
    readiness: q.readiness,
    blocker: q.blocker,
    labels,
    registryLess: q.registryLess,
    stale: q.stale,
    offline: q.offline,
    ...(q.rollout ? { rollout: { number: q.rollout, state: q.rolloutState } } : {}),
  };
}

export const sortOf = (q: FleetListQuery): FleetSort => ({ key: q.sort, desc: q.dir === "desc" });
