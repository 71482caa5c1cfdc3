import type { Reach } from "../domain/grants";
import type { FleetCursor, FleetFilter, FleetSort } from "../store/fleetWindow";
import { FleetListQuerySchema, type FleetListQuery, type FleetListQueryInput } from "./requestContract";

import { CLUSTER_SET_LABEL, HUB_LABEL } from "../domain/hubEligibility";

export { CLUSTER_SET_LABEL, HUB_LABEL };

export { FleetListQuerySchema, type FleetListQuery, type FleetListQueryInput };

export const encodeCursor = (c: FleetCursor) => Buffer.from(JSON.stringify([c.value, c.name])).toString("base64url");

/** The store's filter for a query, limited to the part of the fleet the reader reaches. */
export function filterOf(q: FleetListQuery, reach: Reach): FleetFilter {
  const labels = [...(q.label ?? [])];
  if (q.hub) labels.push({ key: HUB_LABEL, value: q.hub });
  if (q.clusterSet) labels.push({ key: CLUSTER_SET_LABEL, value: q.clusterSet });
  return {
    reach,
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
