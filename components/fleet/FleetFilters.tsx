"use client";

import { useEffect, useState } from "react";
import type { CheckStatus, FleetSummary, SkewStatus } from "@/server/fleet/contract";
import { Select, TextInput } from "../ui";
import { DEFAULT_VIEW, isFiltered, paramsOfView, type FleetViewState } from "./fleetUrl";
import { READINESS_ORDER, SKEW_ORDER } from "./FleetSummaryCards";
import { READINESS, SKEW } from "./status";

const TYPING_MS = 250;

/** A text filter that updates the view once typing pauses, so each keystroke is not a request. */
function DebouncedText({
  value,
  onChange,
  ...props
}: { value: string; onChange: (value: string) => void } & Omit<React.InputHTMLAttributes<HTMLInputElement>, "value" | "onChange">) {
  const [text, setText] = useState(value);
  // The view changed from elsewhere (a tile, "Clear filters", the back button): show its value.
  const [shown, setShown] = useState(value);
  if (value !== shown) {
    setShown(value);
    setText(value);
  }
  useEffect(() => {
    if (text === value) return;
    const timer = setTimeout(() => onChange(text), TYPING_MS);
    return () => clearTimeout(timer);
  }, [text, value, onChange]);
  return <TextInput {...props} value={text} onChange={(e) => setText(e.target.value)} />;
}

/** Options of a select with their counts over the whole fleet, most common first after the current choice. */
const optionsOf = (counts: Record<string, number>) => Object.entries(counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));

export function FleetFilters({
  view,
  set,
  summary,
  total,
}: {
  view: FleetViewState;
  set: (patch: Partial<FleetViewState>) => void;
  summary: FleetSummary;
  total: number | null;
}) {
  const selects: [
    keyof FleetViewState & ("platform" | "version" | "skew" | "mode" | "readiness"),
    string,
    [string, number][],
    (v: string) => string,
  ][] = [
    ["platform", "Platform", optionsOf(summary.byPlatform), (v) => v],
    ["version", "Version", summary.versions.map((v) => [v.minor, v.count]), (v) => v],
    ["skew", "Skew", SKEW_ORDER.map((k) => [k, summary.bySkew[k] ?? 0]), (v) => SKEW[v as SkewStatus]?.label ?? v],
    ["mode", "Enforcement", optionsOf(summary.byMode), (v) => v],
    [
      "readiness",
      "Readiness",
      READINESS_ORDER.map((k) => [k, summary.byReadiness[k] ?? 0]),
      (v) => READINESS[v as CheckStatus]?.label ?? v,
    ],
  ];
  const query = paramsOfView(view).toString();
  return (
    <form className="flex flex-wrap items-end gap-3 border-b border-line p-4" role="search" onSubmit={(e) => e.preventDefault()}>
      <label className="flex flex-col gap-1 text-sm">
        <span className="font-medium">Search</span>
        <DebouncedText type="search" placeholder="name, version, label…" value={view.q} onChange={(q) => set({ q })} />
      </label>
      {selects.map(([key, label, options, word]) => (
        <label key={key} className="flex flex-col gap-1 text-sm">
          <span
            className="font-medium"
            title={
              key === "mode"
                ? "The MCO's boot-image skew enforcement mode: read from the cluster where it enforces, predicted for the first release that enforces on older clusters"
                : undefined
            }
          >
            {label}
          </span>
          <Select value={view[key]} onChange={(e) => set({ [key]: e.target.value })}>
            <option value="">All</option>
            {view[key] && !options.some(([v]) => v === view[key]) ? <option value={view[key]}>{word(view[key])} (0)</option> : null}
            {options.map(([v, n]) => (
              <option key={v} value={v}>
                {word(v)} ({n.toLocaleString()})
              </option>
            ))}
          </Select>
        </label>
      ))}
      <label className="flex flex-col gap-1 text-sm">
        <span className="font-medium">Label</span>
        <DebouncedText placeholder="key=value" value={view.label} onChange={(label) => set({ label })} className="w-36" />
      </label>
      <label className="flex flex-col gap-1 text-sm">
        <span className="font-medium">Hub</span>
        <DebouncedText placeholder="hub name" value={view.hub} onChange={(hub) => set({ hub })} className="w-28" />
      </label>
      <label className="flex flex-col gap-1 text-sm">
        <span className="font-medium">Cluster set</span>
        <DebouncedText placeholder="set" value={view.clusterSet} onChange={(clusterSet) => set({ clusterSet })} className="w-28" />
      </label>
      <div className="flex flex-col gap-1 pb-1 text-sm">
        <label className="flex items-center gap-2">
          <input type="checkbox" checked={view.stale} onChange={(e) => set({ stale: e.target.checked })} /> Stale only
        </label>
        <label className="flex items-center gap-2">
          <input type="checkbox" checked={view.registryLess} onChange={(e) => set({ registryLess: e.target.checked })} /> Registry-less only
        </label>
      </div>
      {view.blocker ? (
        <p className="pb-2 text-sm">
          Blocker: <strong>{view.blocker}</strong>{" "}
          <button type="button" className="text-accent hover:underline" onClick={() => set({ blocker: "" })}>
            clear
          </button>
        </p>
      ) : null}
      <div className="ml-auto flex items-center gap-3 pb-2 text-sm">
        {view.rollout ? (
          <span data-testid="rollout-filter">
            In rollout {view.rollout}
            {view.rolloutState ? ` (${view.rolloutState})` : ""}
          </span>
        ) : null}
        {isFiltered(view) ? (
          <button
            type="button"
            className="text-accent hover:underline"
            onClick={() => set({ ...DEFAULT_VIEW, sort: view.sort, dir: view.dir })}
          >
            Clear filters
          </button>
        ) : null}
        <a className="font-medium text-accent hover:underline" href={`/api/v1/fleet/clusters.csv${query ? `?${query}` : ""}`} download>
          Export CSV
        </a>
        <a className="font-medium text-accent hover:underline" href={`/rollouts?${new URLSearchParams({ query })}`}>
          Plan a rollout
        </a>
        <p className="text-muted" aria-live="polite">
          {total === null ? "…" : `${total.toLocaleString()} of ${summary.clusters.toLocaleString()} clusters`}
        </p>
      </div>
    </form>
  );
}
