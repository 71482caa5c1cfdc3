"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { rolloutEndpoints, type RolloutClusterPage, type RolloutView } from "@/server/rollouts/contract";
import { call } from "../api";
import type { Seed } from "../seed";
import { useSeededQuery } from "../seededQuery";

/** How often a rollout's page asks again while the rollout can still change. */
export const LIVE_MS = 5_000;
const ENDED = ["completed", "aborted"];
export const isLive = (status: string | undefined) => !ENDED.includes(status ?? "");

/**
 * A rollout as its page shows it, asked again every few seconds until it ends. Every part of the
 * page (status, waves, counts, decisions, the clusters table) reads this one query, so they move
 * together, and a decision's answer (set into it) shows everywhere at once.
 */
export function useRolloutView(initial: Seed<RolloutView>) {
  return useSeededQuery(
    {
      queryKey: ["rollouts", initial.data.number],
      queryFn: () => call(rolloutEndpoints.get, { params: { id: String(initial.data.number) } }),
      refetchInterval: (query) => (isLive(query.state.data?.status) ? LIVE_MS : false),
    },
    initial,
  );
}

/** What the rollout's clusters table depends on: its status and its clusters per state. */
const versionOf = (view: RolloutView) =>
  `${view.status}:${Object.entries(view.counts)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([state, n]) => `${state}=${n}`)
    .join(",")}`;

/**
 * A page of the rollout's clusters that follows the rollout: read again whenever the rollout's
 * counts or status change (the key carries them, so the rows never lag the summary for longer than
 * one read), and every few seconds while it runs, for reasons that change without a count moving.
 * The rows shown stay on screen while the next read is under way.
 */
export function useRolloutClusters(
  view: RolloutView,
  filter: { state: RolloutClusterPage["clusters"][number]["state"] | null; after: string | null },
  initial: { page: Seed<RolloutClusterPage>; view: RolloutView },
) {
  const version = versionOf(view);
  return useQuery({
    queryKey: ["rollouts", view.number, "clusters", filter.state, filter.after, version],
    queryFn: () =>
      call(rolloutEndpoints.clusters, {
        params: { id: String(view.number) },
        query: { state: filter.state ?? undefined, after: filter.after ?? undefined, limit: 100 },
      }),
    // The server's page is the answer only for the rollout as the server read it.
    initialData: () => (version === versionOf(initial.view) ? initial.page.data : undefined),
    initialDataUpdatedAt: initial.page.at,
    placeholderData: keepPreviousData,
    refetchInterval: isLive(view.status) ? LIVE_MS : false,
  });
}
