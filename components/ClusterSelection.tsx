"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { CHECK_STATUSES, fleetEndpoints, SKEW_STATUSES, type FleetListQueryInput } from "@/server/fleet/contract";
import { call } from "./api";
import { fleetLink, queryOfTyped } from "./selectionText";
import { Alert, TextInput } from "./ui";

/** The fleet view's query string with its search replaced (or removed). */
export function withSearch(query: string, q: string): string {
  const params = new URLSearchParams(query);
  params.delete("after");
  if (q.trim()) params.set("q", q.trim());
  else params.delete("q");
  return params.toString();
}

const SELECT = "rounded-md border border-line bg-surface px-2 py-1 text-sm text-ink";

/**
 * Clusters chosen the way the fleet is watched: by the fleet view's filters (brought along from the
 * fleet page, set with the controls, or typed as `platform=AWS`, `skew=at-risk`, `label=k=v`,
 * `clusterSet=x`) and a search, never one control per cluster. Shows how many match and the first
 * few, from the same API the fleet table uses, as the text is typed.
 */
export function ClusterSelection({
  query,
  onChange,
  max,
  id = "cluster-search",
}: {
  query: string;
  onChange: (query: string) => void;
  /** The most clusters the action takes at once, if it has a limit. */
  max?: number;
  id?: string;
}) {
  // The base is what came from the fleet view or the controls; the typed text goes on top of it.
  const [base, setBase] = useState(() => withSearch(query, ""));
  const [typed, setTyped] = useState(() => new URLSearchParams(query).get("q") ?? "");
  const update = (nextBase: string, nextTyped: string) => {
    setBase(nextBase);
    setTyped(nextTyped);
    onChange(queryOfTyped(nextBase, nextTyped));
  };
  const baseParams = new URLSearchParams(base);
  const setControl = (key: string, value: string) => {
    const next = new URLSearchParams(base);
    if (value) next.set(key, value);
    else next.delete(key);
    update(next.toString(), typed);
  };
  const filters = [...baseParams].filter(([k]) => k !== "sort" && k !== "dir" && k !== "skew" && k !== "readiness");
  const matching = useQuery({
    queryKey: ["clusters", { selection: query }],
    queryFn: () =>
      call(fleetEndpoints.list, { query: { ...(Object.fromEntries(new URLSearchParams(query)) as FleetListQueryInput), limit: 5 } }),
    placeholderData: keepPreviousData,
    retry: false,
  });
  const total = matching.data?.total ?? null;
  const names = matching.data?.clusters.map((c) => c.name) ?? [];
  return (
    <div className="grid gap-2" data-testid="cluster-selection">
      <label htmlFor={id} className="text-sm font-medium">
        Clusters
      </label>
      <TextInput
        id={id}
        type="search"
        placeholder="Name or version, or a filter: platform=AWS, skew=at-risk, readiness=warn, region=emea, clusterSet=edge"
        value={typed}
        aria-describedby={`${id}-help`}
        onChange={(e) => update(base, e.target.value)}
      />
      <p id={`${id}-help`} className="text-xs text-muted">
        The fleet view&apos;s filters work here as typed: <code>platform=AWS</code>, <code>skew=at-risk</code>, <code>readiness=warn</code>,{" "}
        <code>label=region=emea</code> (or just <code>region=emea</code>), <code>clusterSet=edge</code>, <code>name=a,b</code>; other words
        search names and versions. Empty: the whole selection.
      </p>
      <div className="flex flex-wrap gap-3 text-sm">
        <label className="flex items-center gap-1">
          Skew
          <select className={SELECT} value={baseParams.get("skew") ?? ""} onChange={(e) => setControl("skew", e.target.value)}>
            <option value="">any</option>
            {SKEW_STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label className="flex items-center gap-1">
          Readiness
          <select className={SELECT} value={baseParams.get("readiness") ?? ""} onChange={(e) => setControl("readiness", e.target.value)}>
            <option value="">any</option>
            {CHECK_STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
      </div>
      {filters.length ? (
        <p className="text-xs text-muted">
          From the fleet view: {filters.map(([k, v]) => `${k}=${v}`).join(", ")}{" "}
          <button type="button" className="text-accent hover:underline" onClick={() => update("", typed)}>
            clear
          </button>
        </p>
      ) : null}
      <p className="text-sm" aria-live="polite" data-testid="selection-count" data-total={total ?? ""}>
        {matching.error
          ? null
          : total === null
            ? "Counting…"
            : `${total.toLocaleString()} ${total === 1 ? "cluster matches" : "clusters match"}`}
        {!matching.error && names.length ? ": " : ""}
        {!matching.error
          ? names.map((n, i) => (
              <span key={n}>
                {i ? ", " : ""}
                <a className="text-accent hover:underline" href={`/clusters/${encodeURIComponent(n)}`}>
                  {n}
                </a>
              </span>
            ))
          : null}
        {!matching.error && total !== null && total > names.length ? (
          <>
            {" and "}
            <a className="text-accent hover:underline" href={fleetLink(query)}>
              {(total - names.length).toLocaleString()} more in the fleet view
            </a>
          </>
        ) : null}
      </p>
      {matching.error ? <Alert tone="error">{matching.error.message}</Alert> : null}
      {max !== undefined && !matching.error && total !== null && total > max ? (
        <Alert tone="error">
          At most {max} clusters at once: narrow the search, or refine the filter in the{" "}
          <a className="underline" href={fleetLink(query)}>
            fleet view
          </a>
          .
        </Alert>
      ) : null}
    </div>
  );
}
