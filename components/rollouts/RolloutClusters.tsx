"use client";

import Link from "next/link";
import type { RolloutClusterPage, RolloutView } from "@/server/rollouts/contract";
import { formatDate } from "@/lib/format";
import type { Seed } from "../seed";
import { Section, Table } from "../ui";
import { useRolloutClusters, useRolloutView } from "./live";
import { STATE_WORDS } from "./words";

type ClusterState = RolloutClusterPage["clusters"][number]["state"];

/**
 * A rollout's clusters, a page of 100 at a time in wave order, narrowed by state with plain links:
 * it works before the page's scripts run, and stays small at 10,000 clusters. Once they run, the
 * table follows the rollout live, as its status and waves do.
 */
export function RolloutClusters({
  initialView,
  initialPage,
  state,
  after,
}: {
  initialView: Seed<RolloutView>;
  initialPage: Seed<RolloutClusterPage>;
  state: ClusterState | null;
  after: string | null;
}) {
  const view = useRolloutView(initialView).data;
  const q = useRolloutClusters(view, { state, after }, { page: initialPage, view: initialView.data });
  const page = q.data ?? initialPage.data;
  const counts = view.counts;
  const link = (params: Record<string, string | null>) => {
    const search = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => !!e[1]));
    return `/rollouts/${view.number}${search.size ? `?${search}` : ""}`;
  };
  return (
    <Section title="Clusters" description="In wave order; a wave of -1 lists the clusters the plan excluded.">
      <nav aria-label="Cluster states" className="mb-3 flex flex-wrap gap-2 text-sm">
        <Link
          href={link({})}
          aria-current={state === null ? "page" : undefined}
          className={state === null ? "font-semibold" : "text-accent"}
        >
          All
        </Link>
        {Object.entries(STATE_WORDS)
          .filter(([s]) => s in counts && (counts[s] ?? 0) > 0)
          .map(([s, w]) => (
            <Link
              key={s}
              href={link({ state: s })}
              aria-current={state === s ? "page" : undefined}
              className={state === s ? "font-semibold" : "text-accent"}
            >
              {w.label} ({counts[s]})
            </Link>
          ))}
        <Link href={`/fleet?rollout=${view.number}${state ? `&rolloutState=${state}` : ""}`} className="ml-auto text-accent">
          In the fleet view
        </Link>
        <a
          href={`/api/v1/fleet/clusters.csv?rollout=${view.number}${state ? `&rolloutState=${state}` : ""}`}
          className="text-accent"
          download
        >
          CSV
        </a>
      </nav>
      <div data-testid="rollout-clusters" aria-busy={q.isFetching}>
        <Table
          caption="Clusters of the rollout"
          rows={page.clusters}
          rowKey={(c) => c.clusterName}
          rowProps={(c) => ({ "data-state": c.state })}
          columns={[
            {
              head: "Cluster",
              cell: (c) => (
                <Link href={`/clusters/${encodeURIComponent(c.clusterName)}`} className="text-accent hover:underline">
                  {c.clusterName}
                </Link>
              ),
            },
            { head: "Wave", cell: (c) => (c.wave < 0 ? "—" : c.wave) },
            { head: "State", cell: (c) => STATE_WORDS[c.state]?.label ?? c.state },
            { head: "Why", cell: (c) => c.reason ?? (c.windowOpensAt ? `window opens ${formatDate(c.windowOpensAt)}` : "") },
            { head: "Started", cell: (c) => <span className="whitespace-nowrap">{formatDate(c.startedAt)}</span> },
            { head: "Finished", cell: (c) => <span className="whitespace-nowrap">{formatDate(c.finishedAt)}</span> },
          ]}
        />
      </div>
      {page.next ? (
        <p className="mt-3 text-sm">
          <Link href={link({ state, after: page.next })} className="text-accent hover:underline">
            Next 100 clusters
          </Link>
        </p>
      ) : null}
    </Section>
  );
}
