/**
 * The fleet table's sort keys, as the API, the page's URL and the store's window query name them:
 * the contract checks a request against them and the store orders by them, so both take them from here.
 */
export const FLEET_SORT_KEYS = ["name", "version", "skew", "oldest", "readiness", "lastSeen"] as const;
export type FleetSortKey = (typeof FLEET_SORT_KEYS)[number];
