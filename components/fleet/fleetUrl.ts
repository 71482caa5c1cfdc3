import type { FleetListQueryInput } from "@/server/fleet/requestContract";

/**
 * The fleet view's state is its URL's query string, in the API's own parameters: a filtered,
 * sorted view survives a reload and is a link someone can send, and the page asks the API with the
 * same string. Only what differs from the defaults is written.
 */
export type FleetViewState = {
  q: string;
  platform: string;
  version: string;
  skew: string;
  mode: string;
  readiness: string;
  blocker: string;
  label: string;
  hub: string;
  clusterSet: string;
  rollout: string;
  rolloutState: string;
  registryLess: boolean;
  stale: boolean;
  sort: NonNullable<FleetListQueryInput["sort"]>;
  dir: "asc" | "desc";
};

export const DEFAULT_VIEW: FleetViewState = {
  q: "",
  platform: "",
  version: "",
  skew: "",
  mode: "",
  readiness: "",
  blocker: "",
  label: "",
  hub: "",
  clusterSet: "",
  rollout: "",
  rolloutState: "",
  registryLess: false,
  stale: false,
  sort: "skew",
  dir: "asc",
};

const TEXT_KEYS = [
  "q",
  "platform",
  "version",
  "skew",
  "mode",
  "readiness",
  "blocker",
  "label",
  "hub",
  "clusterSet",
  "rollout",
  "rolloutState",
] as const;
const FLAG_KEYS = ["registryLess", "stale"] as const;
const SORTS = new Set(["name", "version", "skew", "oldest", "readiness", "lastSeen"]);

export function viewFromParams(params: { get(name: string): string | null }): FleetViewState {
  const view = { ...DEFAULT_VIEW };
  for (const key of TEXT_KEYS) view[key] = params.get(key) ?? "";
  for (const key of FLAG_KEYS) view[key] = params.get(key) === "1";
  const sort = params.get("sort");
  if (sort && SORTS.has(sort)) view.sort = sort as FleetViewState["sort"];
  view.dir = params.get("dir") === "desc" ? "desc" : "asc";
  return view;
}

/** The query string of a view: also what the API is asked (without paging). */
export function paramsOfView(view: FleetViewState): URLSearchParams {
  const params = new URLSearchParams();
  for (const key of TEXT_KEYS) if (view[key].trim()) params.set(key, view[key].trim());
  for (const key of FLAG_KEYS) if (view[key]) params.set(key, "1");
  if (view.sort !== DEFAULT_VIEW.sort) params.set("sort", view.sort);
  if (view.dir !== DEFAULT_VIEW.dir) params.set("dir", view.dir);
  return params;
}

export const isFiltered = (view: FleetViewState) => TEXT_KEYS.some((k) => view[k].trim() !== "") || FLAG_KEYS.some((k) => view[k]);

/** Rows per request: a window stays well under 100 KB of JSON. */
export const FLEET_WINDOW = 100;
