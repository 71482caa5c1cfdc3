"use client";

import { usePathname, useSearchParams } from "next/navigation";
import { useCallback, useEffect, useRef, useState } from "react";
import type { FleetSummary } from "@/server/fleet/contract";
import { queries } from "../queries";
import type { Seed } from "../seed";
import { useSeededQuery } from "../seededQuery";
import { Card } from "../ui";
import { FleetFilters } from "./FleetFilters";
import { FleetSummaryCards } from "./FleetSummaryCards";
import { FleetTable, REFRESH_MS, useFleetWindows, type FirstWindow } from "./FleetTable";
import { FleetTimelineChart } from "./FleetTimelineChart";
import { paramsOfView, viewFromParams, type FleetViewState } from "./fleetUrl";

/**
 * The fleet page: counts of the whole fleet, and the table a window at a time. What is filtered and
 * how it is sorted lives in the URL (see fleetUrl.ts); every filter and sort runs in the database.
 */
export function FleetView({ first, summary: initialSummary }: { first: FirstWindow; summary: Seed<FleetSummary> }) {
  const pathname = usePathname();
  const params = useSearchParams();
  // The view is state here, written to the URL after each change: several quick changes (two
  // filters, then a sort) build on each other rather than on a URL that has not caught up yet.
  const [view, setView] = useState(() => viewFromParams(params));
  const query = paramsOfView(view).toString();
  const set = useCallback((patch: Partial<FleetViewState>) => setView((current) => ({ ...current, ...patch })), []);
  // The URL follows the view through the History API: Next.js keeps useSearchParams in step without
  // asking the server to render the page again, so a keystroke costs one small API request.
  useEffect(() => {
    if (query !== window.location.search.replace(/^\?/, ""))
      window.history.replaceState(window.history.state, "", query ? `${pathname}?${query}` : pathname);
  }, [query, pathname]);
  // Back and forward move through history entries this page did not write: read the view from them.
  useEffect(() => {
    const onPop = () => setView(viewFromParams(new URLSearchParams(window.location.search)));
    window.addEventListener("popstate", onPop);
    return () => window.removeEventListener("popstate", onPop);
  }, []);
  // A tile, the blocker or a version bar filters the table: bring the table into sight when it is
  // out of it, or the click would look as if it did nothing.
  const table = useRef<HTMLDivElement>(null);
  const filter = useCallback(
    (patch: Partial<FleetViewState>) => {
      set(patch);
      const top = table.current?.getBoundingClientRect().top;
      if (top !== undefined && (top > window.innerHeight * 0.6 || top < 0))
        table.current!.scrollIntoView({
          block: "start",
          behavior: window.matchMedia("(prefers-reduced-motion: reduce)").matches ? "auto" : "smooth",
        });
    },
    [set],
  );
  const summary = useSeededQuery({ ...queries.fleetSummary(), refetchInterval: REFRESH_MS }, initialSummary);
  const windows = useFleetWindows(query, first);
  const total = windows.data?.pages[0]?.total ?? null;

  if (summary.data.clusters === 0)
    return (
      <Card className="p-8 text-center">
        <h2 className="text-lg font-semibold">No clusters registered yet</h2>
        <p className="mx-auto mt-2 max-w-xl text-muted">
          Fleetskew watches clusters through their Kubernetes API. An admin registers each cluster under{" "}
          <a className="font-medium text-accent underline" href="/admin/clusters">
            Admin → Clusters
          </a>
          .
        </p>
      </Card>
    );

  return (
    <div className="flex flex-col gap-6">
      <FleetSummaryCards summary={summary.data} updatedAt={windows.dataUpdatedAt} fetching={windows.isFetching} view={view} set={filter} />
      {/* The table comes before the history chart: what the counts filter is what a person came for. */}
      <div ref={table} id="clusters" className="scroll-mt-4">
        <Card>
          <FleetFilters view={view} set={set} summary={summary.data} total={windows.isPlaceholderData ? null : total} />
          <FleetTable windows={windows} view={view} set={set} />
        </Card>
      </div>
      <FleetTimelineChart />
    </div>
  );
}
