"use client";

import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import type { CheckStatus, FleetSummary, SkewStatus } from "@/server/fleet/contract";
import { Select, TextInput } from "../ui";
import { DEFAULT_VIEW, isFiltered, paramsOfView, viewFromParams, type FleetViewState } from "./fleetUrl";
import { READINESS_ORDER, SKEW_ORDER } from "./FleetSummaryCards";
import { READINESS, SKEW } from "./status";

/**
 * How long typing must pause before the view asks again: short, so the matching rows show within
 * 200 ms of the keystroke (the server answers a search in a few milliseconds, and the same answer
 * is shared by everyone asking within two seconds). Measured in bench/fleetView.ts: at 90 ms one
 * keystroke in twenty took up to 300 ms to show its rows on a loaded machine.
 */
const TYPING_MS = 30;

/** A text filter that updates the view once typing pauses, so each keystroke is not a request. */
function DebouncedText({
  value,
  onChange,
  ...props
}: { value: string; onChange: (value: string) => void } & Omit<React.InputHTMLAttributes<HTMLInputElement>, "value" | "onChange">) {
  const [text, setText] = useState(value);
  const [shown, setShown] = useState(value);
  // What this field last handed to the view: when it comes back as `value`, it is our own change,
  // and what was typed meanwhile stays (a keystroke between the two would otherwise be undone).
  const [sent, setSent] = useState<string | null>(null);
  if (value !== shown) {
    setShown(value);
    // The view changed from elsewhere (a tile, "Clear filters", the back button): show its value.
    if (value !== sent) setText(value);
  }
  useEffect(() => {
    if (text === value) return;
    const timer = setTimeout(() => {
      setSent(text);
      onChange(text);
    }, TYPING_MS);
    return () => clearTimeout(timer);
  }, [text, value, onChange]);
  return <TextInput {...props} value={text} onChange={(e) => setText(e.target.value)} />;
}

const noSubscription = () => () => undefined;

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
  const form = useRef<HTMLFormElement>(null);
  // False in the server's HTML and while hydrating, true once the scripts run.
  const alive = useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
  // What someone typed, chose or ticked before the page's scripts ran is in the form, not in the
  // view the server rendered: take it over once, so none of it is lost.
  useEffect(() => {
    if (!form.current) return;
    const typed = viewFromParams(new FormData(form.current) as unknown as URLSearchParams);
    const patch = Object.fromEntries(
      (Object.keys(typed) as (keyof FleetViewState)[]).filter((k) => typed[k] !== view[k]).map((k) => [k, typed[k]]),
    ) as Partial<FleetViewState>;
    if (Object.keys(patch).length) set(patch);
    // Once, at hydration: later changes arrive through the inputs' own handlers.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  // Before the scripts run it is a plain GET form (Enter or "Apply" loads the filtered page); after, each change applies at once.
  return (
    <form
      ref={form}
      method="get"
      action="/fleet"
      className="flex flex-wrap items-end gap-3 border-b border-line p-4"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        if (form.current) set(viewFromParams(new FormData(form.current) as unknown as URLSearchParams));
      }}
    >
      {(["blocker", "rollout", "rolloutState", "sort", "dir"] as const).map((k) =>
        view[k] && view[k] !== DEFAULT_VIEW[k] ? <input key={k} type="hidden" name={k} value={view[k]} /> : null,
      )}
      <label className="flex flex-col gap-1 text-sm">
        <span className="font-medium">Search</span>
        <DebouncedText type="search" name="q" placeholder="name, version, label…" value={view.q} onChange={(q) => set({ q })} />
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
          <Select name={key} value={view[key]} onChange={(e) => set({ [key]: e.target.value })}>
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
        <DebouncedText name="label" placeholder="key=value" value={view.label} onChange={(label) => set({ label })} className="w-36" />
      </label>
      <label className="flex flex-col gap-1 text-sm">
        <span className="font-medium">Hub</span>
        <DebouncedText name="hub" placeholder="hub name" value={view.hub} onChange={(hub) => set({ hub })} className="w-28" />
      </label>
      <label className="flex flex-col gap-1 text-sm">
        <span className="font-medium">Cluster set</span>
        <DebouncedText
          name="clusterSet"
          placeholder="set"
          value={view.clusterSet}
          onChange={(clusterSet) => set({ clusterSet })}
          className="w-28"
        />
      </label>
      <div className="flex flex-col gap-1 pb-1 text-sm">
        <label className="flex items-center gap-2">
          <input type="checkbox" name="stale" value="1" checked={view.stale} onChange={(e) => set({ stale: e.target.checked })} /> Stale
          only
        </label>
        <label className="flex items-center gap-2">
          <input
            type="checkbox"
            name="registryLess"
            value="1"
            checked={view.registryLess}
            onChange={(e) => set({ registryLess: e.target.checked })}
          />{" "}
          Registry-less only
        </label>
      </div>
      <button type="submit" className={alive ? "sr-only" : "rounded-md border border-line px-3 py-1 text-sm"} tabIndex={alive ? -1 : 0}>
        Apply
      </button>
      {view.blocker ? (
        <p className="pb-2 text-sm">
          Blocker: <strong>{view.blocker}</strong>{" "}
          <button type="button" className="text-accent hover:underline" onClick={() => set({ blocker: "" })}>
            clear
          </button>
        </p>
      ) : null}
      <div className="ml-auto flex flex-wrap items-center gap-3 pb-2 text-sm">
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
        <a className="font-medium text-accent hover:underline" href={`/preview?${new URLSearchParams({ query })}`}>
          Preview a change
        </a>
        <p className="text-muted" aria-live="polite">
          {total === null ? "…" : `${total.toLocaleString()} of ${summary.clusters.toLocaleString()} clusters`}
        </p>
      </div>
    </form>
  );
}
