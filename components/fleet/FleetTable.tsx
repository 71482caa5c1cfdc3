"use client";

import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import { useVirtualizer } from "@tanstack/react-virtual";
import Link from "next/link";
import { useEffect, useRef } from "react";
import { fleetEndpoints, type ClusterList, type FleetCluster } from "@/server/fleet/contract";
import type { FleetListQueryInput } from "@/server/fleet/requestContract";
import { call } from "../api";
import { LastContact } from "../LastContact";
import type { Seed } from "../seed";
import { Alert } from "../ui";
import { FLEET_WINDOW, type FleetViewState } from "./fleetUrl";
import { ReadinessBadge, SkewBadge } from "./status";

export const REFRESH_MS = 15_000;
const ROW_HEIGHT = 56;
const COLUMNS = "minmax(12rem,2fr) 6rem 6rem 8rem 8rem 7rem minmax(10rem,1.5fr) 10rem";

/** The first window the server rendered, with the query string it answered. */
export type FirstWindow = Seed<ClusterList> & { query: string };

/**
 * The windows of the fleet the table has scrolled through, each one request with the view's query
 * string and the cursor of the one before. A refresh asks again for each; the browser revalidates
 * with the ETag, so an unchanged window costs a 304.
 */
export function useFleetWindows(query: string, first: FirstWindow) {
  return useInfiniteQuery({
    queryKey: ["clusters", { window: query }],
    queryFn: ({ pageParam }) =>
      call(fleetEndpoints.list, {
        // The view's own query string (its URL), which the server checks; the same URL each time, so the browser revalidates by ETag.
        query: {
          ...(Object.fromEntries(new URLSearchParams(query)) as FleetListQueryInput),
          limit: FLEET_WINDOW,
          after: pageParam ?? undefined,
        },
      }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next,
    initialData: first.query === query ? { pages: [first.data], pageParams: [null] } : undefined,
    initialDataUpdatedAt: first.at,
    placeholderData: keepPreviousData,
    refetchInterval: REFRESH_MS,
  });
}

type SortKey = FleetViewState["sort"];

export function FleetTable({
  windows,
  view,
  set,
}: {
  windows: ReturnType<typeof useFleetWindows>;
  view: FleetViewState;
  set: (patch: Partial<FleetViewState>) => void;
}) {
  const rows: FleetCluster[] = windows.data?.pages.flatMap((p) => p.clusters) ?? [];
  const total = windows.data?.pages[0]?.total ?? 0;
  const scroller = useRef<HTMLDivElement>(null);
  const height = Math.min(640, Math.max(ROW_HEIGHT * 2, total * ROW_HEIGHT));
  const virtualizer = useVirtualizer({
    count: total,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    // The scroller's size before it can be measured: the server renders the first rows into the
    // page, so they show as soon as the HTML arrives instead of after the scripts have run.
    initialRect: { width: 0, height },
  });
  const items = virtualizer.getVirtualItems();
  const lastShown = items[items.length - 1]?.index ?? 0;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = windows;
  // Rows are fetched as the table scrolls: the next window whenever a row past the loaded ones is on screen.
  useEffect(() => {
    if (lastShown >= rows.length - 1 && hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [lastShown, rows.length, hasNextPage, isFetchingNextPage, fetchNextPage]);

  const header = (key: SortKey | null, label: string) =>
    key ? (
      <button
        type="button"
        className="flex items-center gap-1 font-medium hover:text-ink"
        onClick={() => set({ sort: key, dir: view.sort === key && view.dir === "asc" ? "desc" : "asc" })}
        aria-label={`Sort by ${label}`}
      >
        {label}
        <span aria-hidden className="text-xs">
          {view.sort === key ? (view.dir === "desc" ? "▼" : "▲") : ""}
        </span>
      </button>
    ) : (
      <span className="font-medium">{label}</span>
    );

  return (
    <>
      {windows.error ? (
        <div className="p-4">
          <Alert tone="error">Could not read the fleet: {windows.error.message}</Alert>
        </div>
      ) : null}
      {/* On a narrow screen the table scrolls sideways inside the card, header and rows together, never the page. */}
      <div className="max-w-full overflow-x-auto">
        <div role="table" aria-label="Clusters" aria-rowcount={total + 1} className="min-w-[72rem] text-sm">
          <div role="rowgroup">
            <div role="row" className="grid gap-3 border-b border-line px-4 py-2 text-muted" style={{ gridTemplateColumns: COLUMNS }}>
              <div role="columnheader">{header("name", "Cluster")}</div>
              <div role="columnheader">{header("version", "Version")}</div>
              <div role="columnheader">{header(null, "Platform")}</div>
              <div role="columnheader">{header("skew", "Skew")}</div>
              <div role="columnheader">{header("oldest", "Oldest boot image")}</div>
              <div role="columnheader">{header("readiness", "Readiness")}</div>
              <div role="columnheader">{header(null, "Blocker")}</div>
              <div role="columnheader">{header("lastSeen", "Last contact")}</div>
            </div>
          </div>
          <div ref={scroller} role="rowgroup" className="overflow-auto" style={{ height }}>
            {total === 0 && !windows.isFetching ? <p className="p-6 text-center text-muted">No cluster matches these filters.</p> : null}
            <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
              {items.map((item) => {
                const c = rows[item.index];
                const style = { height: ROW_HEIGHT, transform: `translateY(${item.start}px)`, gridTemplateColumns: COLUMNS };
                if (!c)
                  return (
                    <div
                      key={item.key}
                      role="row"
                      aria-rowindex={item.index + 2}
                      className="absolute left-0 grid w-full items-center px-4 text-muted"
                      style={style}
                    >
                      <div role="cell">Loading…</div>
                    </div>
                  );
                return (
                  <div
                    key={c.id}
                    role="row"
                    aria-rowindex={item.index + 2}
                    className="absolute left-0 grid w-full items-center gap-3 border-b border-line px-4 hover:bg-canvas"
                    style={style}
                  >
                    <div role="cell" className="truncate">
                      <Link href={`/clusters/${encodeURIComponent(c.name)}`} className="font-medium text-accent hover:underline">
                        {c.displayName}
                      </Link>
                      {c.registryLess ? (
                        <span
                          className="ml-2 rounded bg-accent/10 px-1.5 py-0.5 text-xs text-accent"
                          title="Installed without a registry: updates only to releases its InternalReleaseImage serves"
                        >
                          registry-less
                        </span>
                      ) : null}
                      <div className="truncate text-xs text-muted">
                        {c.displayName !== c.name ? `${c.name} · ` : ""}
                        {c.offline ? "offline import · " : ""}
                        {c.hubState === "lease-expired"
                          ? "offline on its hub · "
                          : c.hubState === "removed"
                            ? "removed from its hub · "
                            : ""}
                        {Object.entries(c.labels)
                          .filter(([k]) => !k.startsWith("fleetskew.io/"))
                          .map(([k, v]) => `${k}=${v}`)
                          .join(" ")}
                      </div>
                    </div>
                    <div role="cell">{c.version ?? "—"}</div>
                    <div role="cell">{c.platform ?? "—"}</div>
                    <div role="cell">
                      <SkewBadge status={c.skewStatus} title={c.skewSummary} />
                    </div>
                    <div role="cell">{c.oldestBootImage ?? "—"}</div>
                    <div role="cell">
                      <ReadinessBadge status={c.readinessStatus} title={c.readinessTarget ? `for ${c.readinessTarget}` : null} />
                    </div>
                    <div role="cell" className="truncate text-xs" title={c.readinessBlocker ?? undefined}>
                      {c.readinessBlocker ?? ""}
                    </div>
                    <div role="cell" className="truncate text-xs">
                      <LastContact cluster={c} />
                    </div>
                  </div>
                );
              })}
            </div>
          </div>
        </div>
      </div>
    </>
  );
}
