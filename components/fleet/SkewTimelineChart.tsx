"use client";

import { formatDate, formatDay } from "@/lib/format";
import { useQuery } from "@tanstack/react-query";
import { CartesianGrid, ComposedChart, Legend, Line, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { queries } from "../queries";
import { Alert, Card } from "../ui";
import { legendText } from "./status";
import { chartRows, labelledUpgrades, tickLabel, versionValue } from "./timelineRows";

/** Event lines: upgrades in the cluster-version blue, people's actions in green, what the MCO reported in purple. */
const EVENT_COLORS: Record<string, string> = { upgrade: "#0b63c5", acknowledgement: "#1e7b3a", bundle: "#1e7b3a" };

export function SkewTimelineChart({ cluster }: { cluster: string }) {
  const q = useQuery({ ...queries.timeline(cluster), refetchInterval: 30_000 });
  const t = q.data;
  const rows = t ? chartRows(t) : [];
  const limit = t?.limit ? versionValue(t.limit.ocpVersion) : null;
  const values = rows
    .flatMap((r) => [r.cluster, r.clusterInferred, r.bootObserved, r.bootInferred])
    .filter((v): v is number => typeof v === "number");
  const known = limit !== null ? [...values, limit] : values;
  const lo = known.length ? Math.floor(Math.min(...known)) - 1 : 410;
  const hi = known.length ? Math.ceil(Math.max(...known)) + 1 : 425;
  const fmtDate = (n: number) => formatDay(n);
  const lastVersion = t?.version.at(-1)?.version;
  const lastBoot = t?.oldestBootImage.at(-1)?.ocpVersion;
  const labelled = t && rows.length ? labelledUpgrades(t.events, rows[0]!.t, rows.at(-1)!.t) : new Set<number>();
  return (
    <Card className="p-4">
      <h2 className="font-semibold">Skew timeline</h2>
      <p className="text-xs text-muted">
        Cluster version and its oldest boot image over time. Dashed parts are inferred (from ClusterVersion history and the install version,
        before Fleetskew first swept the cluster); the red line is the boot-image limit
        {t?.limit ? ` (OCP ${t.limit.ocpVersion}, enforced from ${t.limit.fromRelease})` : ""}.
      </p>
      {q.error ? <Alert tone="error">Could not load the timeline: {(q.error as Error).message}</Alert> : null}
      <div
        className="mt-3 h-72"
        role="img"
        aria-label={`Skew timeline of ${cluster}: cluster version ${lastVersion ?? "unknown"}, oldest boot image ${lastBoot ?? "unknown"}${t?.events.length ? `, ${t.events.length} events` : ""}`}
      >
        {rows.length ? (
          <ResponsiveContainer width="100%" height="100%">
            <ComposedChart data={rows} margin={{ top: 16, right: 16, bottom: 0, left: -8 }}>
              <CartesianGrid strokeDasharray="3 3" opacity={0.3} />
              <XAxis
                dataKey="t"
                type="number"
                scale="time"
                domain={["dataMin", "dataMax"]}
                tickFormatter={fmtDate}
                tick={{ fontSize: 11 }}
                minTickGap={50}
                interval="preserveStartEnd"
              />
              <YAxis
                domain={[lo, hi]}
                ticks={Array.from({ length: hi - lo + 1 }, (_, i) => lo + i)}
                tickFormatter={tickLabel}
                tick={{ fontSize: 11 }}
              />
              <Tooltip
                labelFormatter={(n) => fmtDate(Number(n))}
                formatter={(v) => (typeof v === "number" ? tickLabel(v) + "." + Math.round((v % 1) * 1000) : String(v))}
              />
              <Legend formatter={legendText} />
              {limit ? (
                <ReferenceLine
                  y={limit}
                  stroke="#c0392b"
                  strokeWidth={2}
                  label={{ value: `limit ${t!.limit!.ocpVersion}`, fontSize: 11, fill: "#c0392b", position: "insideTopLeft" }}
                />
              ) : null}
              {t!.events.map((e, i) => (
                <ReferenceLine
                  key={i}
                  x={new Date(e.at).getTime()}
                  stroke={EVENT_COLORS[e.kind] ?? "#8e44ad"}
                  strokeDasharray={e.inferred ? "2 4" : "4 2"}
                  // Only upgrades are labelled (with the version reached), spaced apart; every event is listed below the chart.
                  label={labelled.has(i) ? { value: e.title.split(" → ")[1], fontSize: 10, position: "top", fill: "#556274" } : undefined}
                />
              ))}
              <Line
                dataKey="clusterInferred"
                name="Cluster version (inferred)"
                type="stepAfter"
                stroke="#0b63c5"
                strokeDasharray="5 5"
                dot={false}
                connectNulls
                isAnimationActive={false}
              />
              <Line
                dataKey="cluster"
                name="Cluster version"
                type="stepAfter"
                stroke="#0b63c5"
                strokeWidth={2}
                dot={false}
                connectNulls
                isAnimationActive={false}
              />
              <Line
                dataKey="bootInferred"
                name="Oldest boot image (inferred)"
                type="stepAfter"
                stroke="#d68910"
                strokeDasharray="5 5"
                dot={false}
                connectNulls
                isAnimationActive={false}
              />
              <Line
                dataKey="bootObserved"
                name="Oldest boot image"
                type="stepAfter"
                stroke="#d68910"
                strokeWidth={2}
                dot={false}
                connectNulls
                isAnimationActive={false}
              />
            </ComposedChart>
          </ResponsiveContainer>
        ) : (
          <p className="text-sm text-muted">{q.isLoading ? "Loading…" : "No history yet: the collector has not read this cluster."}</p>
        )}
      </div>
      {t?.events.length ? (
        <details className="mt-2 text-sm">
          <summary className="cursor-pointer text-muted">Events ({t.events.length})</summary>
          <ul className="mt-2 space-y-1">
            {t.events.map((e, i) => (
              <li key={i}>
                <span className="font-mono text-xs text-muted">{formatDate(e.at)}</span> {e.title}
                {e.inferred ? <span className="ml-1 text-xs text-muted">(inferred)</span> : null}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </Card>
  );
}
