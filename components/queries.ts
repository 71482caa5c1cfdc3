import { queryOptions } from "@tanstack/react-query";
import { acknowledgementEndpoints } from "@/server/acknowledgements/contract";
import { bundleEndpoints } from "@/server/bundles/contract";
import { fleetEndpoints } from "@/server/fleet/contract";
import { clusterAdminEndpoints } from "@/server/clusters/contract";
import { signInSettingsEndpoints, userEndpoints } from "@/server/auth/contract";
import { serviceAccountEndpoints, tokenEndpoints } from "@/server/tokens/contract";
import { call } from "./api";

/**
 * Every GET the console makes, with its cache key, defined once. A key names what it caches, so
 * invalidating `["clusters"]` refreshes everything read about clusters (list, detail, readiness,
 * timeline) wherever it is shown; each page adds only its refresh interval.
 */
/** How many clusters a picker or the admin's list shows (the API's largest window). */
export const CLUSTER_CHOICES = 1000;

export const queries = {
  /**
   * GET /api/v1/clusters by name, the first CLUSTER_CHOICES: the admin's cluster list and every
   * cluster picker. (The fleet table asks for windows of its own: useFleetWindows.)
   */
  clusters: () =>
    queryOptions({
      queryKey: ["clusters", "by-name"],
      queryFn: () => call(fleetEndpoints.list, { query: { sort: "name", limit: CLUSTER_CHOICES } }).then((r) => r.clusters),
    }),
  cluster: (name: string) =>
    queryOptions({ queryKey: ["clusters", name], queryFn: () => call(fleetEndpoints.detail, { params: { name } }) }),
  readiness: (name: string, target: string | null) =>
    queryOptions({
      queryKey: ["clusters", name, "readiness", target],
      queryFn: () => call(fleetEndpoints.readiness, { params: { name }, query: { target: target ?? undefined } }).then((r) => r.readiness),
    }),
  timeline: (name: string) =>
    queryOptions({ queryKey: ["clusters", name, "timeline"], queryFn: () => call(fleetEndpoints.timeline, { params: { name } }) }),

  /** GET /api/v1/registration-jobs/{id}: a bulk registration's progress. */
  registrationJob: (id: string) =>
    queryOptions({
      queryKey: ["registration-jobs", id],
      queryFn: () => call(clusterAdminEndpoints.registrationJob, { params: { id } }).then((r) => r.job),
    }),

  fleetSummary: () => queryOptions({ queryKey: ["fleet", "summary"], queryFn: () => call(fleetEndpoints.summary) }),
  /** The fleet's skew per day over the last `days` days. */
  fleetTimeline: (days: number) =>
    queryOptions({
      queryKey: ["fleet", "timeline", days],
      queryFn: () => call(fleetEndpoints.fleetTimeline, { query: { from: new Date(Date.now() - days * 86_400_000).toISOString() } }),
    }),

  applications: () =>
    queryOptions({
      queryKey: ["applications"],
      queryFn: () => call(bundleEndpoints.applications).then((r) => r.applications),
    }),
  application: (id: string) =>
    queryOptions({ queryKey: ["applications", id], queryFn: () => call(bundleEndpoints.application, { params: { id } }) }),
  vettedBundles: () => queryOptions({ queryKey: ["bundles", "vetted"], queryFn: () => call(bundleEndpoints.vetted).then((r) => r.vetted) }),

  acknowledgements: () =>
    queryOptions({
      queryKey: ["acknowledgements"],
      queryFn: () => call(acknowledgementEndpoints.list).then((r) => r.acknowledgements),
    }),
  /** Clusters that need an acknowledgement, at `target` or each one's own next enforcing release. */
  ackCandidates: (target: string | null) =>
    queryOptions({
      queryKey: ["acknowledgements", "candidates", target],
      queryFn: () => call(acknowledgementEndpoints.candidates, { query: { target: target ?? undefined } }).then((r) => r.clusters),
    }),

  users: () => queryOptions({ queryKey: ["users"], queryFn: () => call(userEndpoints.list).then((r) => r.users) }),
  skewLimits: () => queryOptions({ queryKey: ["skew-limits"], queryFn: () => call(fleetEndpoints.skewLimits) }),
  signInSettings: () => queryOptions({ queryKey: ["sign-in-settings"], queryFn: () => call(signInSettingsEndpoints.read) }),
  /** Usernames whose sign-in is slowed down or locked (admins). */
  signInLocks: () => queryOptions({ queryKey: ["sign-in-locks"], queryFn: () => call(signInSettingsEndpoints.locks).then((r) => r.locks) }),
  /** The signed-in person's own API tokens. */
  tokens: () => queryOptions({ queryKey: ["tokens"], queryFn: () => call(tokenEndpoints.list).then((r) => r.tokens) }),
  /** Service accounts with their tokens (admins). */
  serviceAccounts: () =>
    queryOptions({ queryKey: ["service-accounts"], queryFn: () => call(serviceAccountEndpoints.list).then((r) => r.serviceAccounts) }),
};

/** Keys to invalidate after a change: each is the prefix of everything its queries cache. */
export const keys = {
  clusters: ["clusters"],
  /** The fleet summary and timeline: what a sweep or a registration changes besides the list. */
  fleet: ["fleet"],
  applications: ["applications"],
  bundles: ["bundles"],
  acknowledgements: ["acknowledgements"],
  users: ["users"],
  skewLimits: ["skew-limits"],
  signInSettings: ["sign-in-settings"],
  signInLocks: ["sign-in-locks"],
  tokens: ["tokens"],
  serviceAccounts: ["service-accounts"],
  /** The audit log's pages for one set of filters. */
  audit: (filters: Record<string, string>) => ["audit", filters] as const,
} as const;
