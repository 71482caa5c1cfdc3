"use client";

import { memo } from "react";
import { Bar, BarChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { CheckStatus, FleetSummary, SkewStatus } from "@/server/fleet/contract";
import { Card } from "../ui";
import type { FleetViewState } from "./fleetUrl";
import { LastUpdated, READINESS, SKEW } from "./status";

export const SKEW_ORDER: SkewStatus[] = ["blocked", "at-risk", "opted-out", "unknown", "ok"];
export const READINESS_ORDER: CheckStatus[] = ["fail", "warn", "unknown", "pass"];

/**
 * A tile names what it counts on its own: "Blocked" under skew and "Blocked" under readiness side by
 * side read as one thing, yet one is Upgradeable=False for boot images now and the other any failed
 * readiness check for the next minor.
 */
const SKEW_TILE: Record<SkewStatus, string> = {
  blocked: "Skew blocked",
  "at-risk": "Skew at risk",
  "opted-out": "Skew check off",
  unknown: "Skew unknown",
  ok: "Skew within limit",
};
const READINESS_TILE: Record<CheckStatus, string> = {
  fail: "Upgrade blocked",
  warn: "Upgrade warnings",
  unknown: "Readiness unknown",
  pass: "Ready to upgrade",
};

function StatTile({
  label,
  value,
  tone,
  onClick,
  active,
  title,
}: {
  title?: string;
  label: string;
  value: number;
  tone: string;
  onClick: () => void;
  active: boolean;
}) {
  return (
    <button
      type="button"
      onClick={onClick}
      aria-pressed={active}
      title={title}
      className={`flex min-w-24 flex-col rounded-md border px-3 py-1.5 text-left transition hover:bg-canvas ${active ? "border-accent" : "border-line"}`}
    >
      <span className={`text-xl font-semibold ${tone}`}>{value.toLocaleString()}</span>
      <span className="text-xs text-muted">{label}</span>
    </button>
  );
}

const toneOf = (className: string) => className.split(" ").find((c) => c.startsWith("text-")) ?? "";

/**
 * Clusters per minor version; a bar filters the table. Memoised: it changes only with the counts or
 * the chosen version, not with every keystroke in the fleet's search.
 */
const VersionChart = memo(function VersionChart({
  versions,
  version,
  set,
}: {
  versions: FleetSummary["versions"];
  version: string;
  set: (patch: Partial<FleetViewState>) => void;
}) {
  return (
    <Card className="min-w-0 p-4">
      <h2 className="font-semibold">Versions</h2>
      <div className="mt-2 h-36" role="img" aria-label={`Cluster versions: ${versions.map((v) => `${v.minor}: ${v.count}`).join(", ")}`}>
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={versions} margin={{ top: 4, right: 4, bottom: 0, left: -20 }}>
            <XAxis dataKey="minor" tick={{ fontSize: 11 }} interval="preserveStartEnd" minTickGap={8} />
            <YAxis allowDecimals={false} tick={{ fontSize: 11 }} />
            <Tooltip />
            <Bar
              dataKey="count"
              name="clusters"
              fill="#0b63c5"
              isAnimationActive={false}
              onClick={(bar) => {
                // recharts hands back the bar's own data point: one of the versions.
                const minor = String(bar.payload?.minor ?? "");
                set({ version: version === minor ? "" : minor });
              }}
            />
          </BarChart>
        </ResponsiveContainer>
      </div>
    </Card>
  );
});

/** The fleet's counts (whole fleet, from the server's aggregates); a tile or a bar filters the table. */
export function FleetSummaryCards({
  summary,
  updatedAt,
  fetching,
  view,
  set,
}: {
  summary: FleetSummary;
  updatedAt: number;
  fetching: boolean;
  view: FleetViewState;
  set: (patch: Partial<FleetViewState>) => void;
}) {
  const toggle = (key: "skew" | "readiness", value: string) => set({ [key]: view[key] === value ? "" : value });
  return (
    <div className="grid gap-4 lg:grid-cols-3">
      <Card className="min-w-0 p-4 lg:col-span-2">
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <h2 className="font-semibold">Boot-image skew</h2>
          <LastUpdated at={updatedAt} fetching={fetching} />
        </div>
        <div className="mt-3 flex flex-wrap gap-2" role="group" aria-label="Clusters by skew status">
          {SKEW_ORDER.map((k) => (
            <StatTile
              key={k}
              label={SKEW_TILE[k]}
              title={SKEW[k].hint}
              value={summary.bySkew[k] ?? 0}
              tone={toneOf(SKEW[k].className)}
              active={view.skew === k}
              onClick={() => toggle("skew", k)}
            />
          ))}
        </div>
        <h2 className="mt-4 font-semibold">Readiness for the next minor</h2>
        <div className="mt-3 flex flex-wrap gap-2" role="group" aria-label="Clusters by readiness">
          {READINESS_ORDER.map((k) => (
            <StatTile
              key={k}
              label={READINESS_TILE[k]}
              value={summary.byReadiness[k] ?? 0}
              tone={toneOf(READINESS[k].className)}
              active={view.readiness === k}
              onClick={() => toggle("readiness", k)}
            />
          ))}
          <StatTile
            label="Stale data"
            title="The newest sweep did not succeed: the row shows the last good state"
            value={summary.stale}
            tone="text-warn"
            active={view.stale}
            onClick={() => set({ stale: !view.stale })}
          />
          {summary.registryLess ? (
            <StatTile
              label="Registry-less"
              value={summary.registryLess}
              tone="text-ink"
              active={view.registryLess}
              onClick={() => set({ registryLess: !view.registryLess })}
            />
          ) : null}
        </div>
        {summary.mostCommonBlocker ? (
          <p className="mt-3 text-sm">
            Most common blocker:{" "}
            <button
              type="button"
              className="font-semibold text-accent hover:underline"
              onClick={() => set({ blocker: view.blocker === summary.mostCommonBlocker!.title ? "" : summary.mostCommonBlocker!.title })}
            >
              {summary.mostCommonBlocker.title}
            </button>{" "}
            ({summary.mostCommonBlocker.clusters.toLocaleString()} cluster{summary.mostCommonBlocker.clusters === 1 ? "" : "s"})
          </p>
        ) : null}
      </Card>
      <VersionChart versions={summary.versions} version={view.version} set={set} />
    </div>
  );
}
