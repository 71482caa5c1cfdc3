"use client";

import { useQuery } from "@tanstack/react-query";
import { memo, useState } from "react";
import { Area, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { Alert, Card, Select } from "../ui";
import { legendText, SKEW } from "./status";
import type { SkewStatus } from "@/server/fleet/contract";
import { queries } from "../queries";

const STACK: SkewStatus[] = ["ok", "opted-out", "at-risk", "blocked"];
const RANGES = { "90": "Last 90 days", "365": "Last year", "1095": "Last 3 years" } as const;

/**
 * How many clusters were in and out of skew over time (backfilled history included). Memoised: it
 * takes nothing from the view, and drawing a year of days again on every keystroke in the fleet's
 * search would cost the rows their time to show.
 */
export const FleetTimelineChart = memo(function FleetTimelineChart() {
  const [days, setDays] = useState<keyof typeof RANGES>("365");
  const q = useQuery({ ...queries.fleetTimeline(Number(days)), refetchInterval: 60_000 });
  const data = (q.data?.days ?? []).map((d) => ({
    day: d.day,
    ...Object.fromEntries(STACK.map((s) => [s, d.counts[s] ?? 0])),
    inferred: d.inferred ?? 0,
  }));
  const anyInferred = data.some((d) => d.inferred > 0);
  const last = data.at(-1) as Record<string, number | string> | undefined;
  return (
    <Card className="p-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <div>
          <h2 className="font-semibold">Fleet skew over time</h2>
          <p className="text-xs text-muted">
            Clusters per skew status at the end of each day. History before a cluster was first swept is inferred from its ClusterVersion
            history; the dashed line counts the clusters whose status that day is inferred.
          </p>
        </div>
        <label className="flex items-center gap-2 text-sm">
          <span>Range</span>
          <Select value={days} onChange={(e) => setDays(e.target.value as keyof typeof RANGES)}>
            {Object.entries(RANGES).map(([k, label]) => (
              <option key={k} value={k}>
                {label}
              </option>
            ))}
          </Select>
        </label>
      </div>
      {q.error ? <Alert tone="error">Could not load the fleet timeline: {(q.error as Error).message}</Alert> : null}
      <div
        className="mt-3 h-56"
        role="img"
        aria-label={`Fleet skew over time; today: ${STACK.map((s) => `${SKEW[s].label} ${last?.[s] ?? 0}`).join(", ")}`}
      >
        <ResponsiveContainer width="100%" height="100%">
          <ComposedChart data={data} margin={{ top: 4, right: 8, bottom: 0, left: -16 }}>
            <CartesianGrid strokeDasharray="3 3" opacity={0.3} />
            <XAxis dataKey="day" tick={{ fontSize: 11 }} minTickGap={40} />
            <YAxis allowDecimals={false} tick={{ fontSize: 11 }} />
            <Tooltip />
            <Legend formatter={legendText} />
            {STACK.map((s) => (
              <Area
                key={s}
                type="stepAfter"
                dataKey={s}
                name={SKEW[s].label}
                stackId="1"
                stroke={SKEW[s].color}
                fill={SKEW[s].color}
                fillOpacity={0.5}
                isAnimationActive={false}
              />
            ))}
            {anyInferred ? (
              <Line
                type="stepAfter"
                dataKey="inferred"
                name="of which inferred"
                stroke="#475569"
                strokeDasharray="5 4"
                dot={false}
                isAnimationActive={false}
              />
            ) : null}
          </ComposedChart>
        </ResponsiveContainer>
      </div>
    </Card>
  );
});
