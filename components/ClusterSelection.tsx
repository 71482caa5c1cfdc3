"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { fleetEndpoints } from "@/server/fleet/contract";
import type { FleetListQueryInput } from "@/server/fleet/requestContract";
import { call } from "./api";
import { Alert, TextInput } from "./ui";

/** The fleet view's query string with its search replaced (or removed). */
export function withSearch(query: string, q: string): string {
  const params = new URLSearchParams(query);
  params.delete("after");
  if (q.trim()) params.set("q", q.trim());
  else params.delete("q");
  return params.toString();
}

/**
 * Clusters chosen the way the fleet is watched: by the fleet view's filters (brought along from the
 * fleet page) and a search typed here, never one control per cluster. Shows how many match and the
 * first few, from the same API the fleet table uses, as the search is typed.
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
  const [typed, setTyped] = useState(() => new URLSearchParams(query).get("q") ?? "");
  const filters = [...new URLSearchParams(withSearch(query, ""))].filter(([k]) => k !== "sort" && k !== "dir");
  const matching = useQuery({
    queryKey: ["clusters", { selection: query }],
    queryFn: () =>
      call(fleetEndpoints.list, { query: { ...(Object.fromEntries(new URLSearchParams(query)) as FleetListQueryInput), limit: 5 } }),
    placeholderData: keepPreviousData,
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
        placeholder="Search by name, version, label… (empty: the whole selection)"
        value={typed}
        onChange={(e) => {
          setTyped(e.target.value);
          onChange(withSearch(query, e.target.value));
        }}
      />
      {filters.length ? (
        <p className="text-xs text-muted">
          From the fleet view: {filters.map(([k, v]) => `${k} ${v}`).join(", ")}{" "}
          <button type="button" className="text-accent hover:underline" onClick={() => onChange(withSearch("", typed))}>
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
        {names.length
          ? `: ${names.join(", ")}${total !== null && total > names.length ? ` and ${(total - names.length).toLocaleString()} more` : ""}`
          : ""}
      </p>
      {matching.error ? <Alert tone="error">{matching.error.message}</Alert> : null}
      {max !== undefined && total !== null && total > max ? (
        <Alert tone="error">
          At most {max} clusters at once: narrow the search, or refine the filter in the{" "}
          <a className="underline" href={`/fleet?${query}`}>
            fleet view
          </a>
          .
        </Alert>
      ) : null}
    </div>
  );
}
