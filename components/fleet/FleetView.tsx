"use client";

import { useQuery } from "@tanstack/react-query";
import { useVirtualizer } from "@tanstack/react-virtual";
import Link from "next/link";
import { useDeferredValue, useMemo, useRef, useState } from "react";
import { Bar, BarChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { CheckStatus, FleetCluster, SkewStatus } from "@/server/fleet/contract";
import { LastContact } from "../LastContact";
import { queries } from "../queries";
import type { Seed } from "../seed";
import { useSeededQuery } from "../seededQuery";
import { Alert, Card, Select, TextInput } from "../ui";
import { FleetTimelineChart } from "./FleetTimelineChart";
import { LastUpdated, READINESS, ReadinessBadge, SKEW, SkewBadge } from "./status";

const REFRESH_MS = 15_000;

type SortKey = "name" | "version" | "skew" | "oldest" | "readiness" | "lastSeen";
const SKEW_ORDER: SkewStatus[] = ["blocked", "at-risk", "opted-out", "unknown", "ok"];
const READINESS_ORDER: CheckStatus[] = ["fail", "warn", "unknown", "pass"];

/** Orders versions numerically (4.9 before 4.12); unknown last. */
function versionKey(v: string | null): number {
  const m = v ? /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(v) : null;
  return m ? Number(m[1]) * 1e6 + Number(m[2]) * 1e3 + Number(m[3] ?? 0) : Number.MAX_SAFE_INTEGER;
}
const minorOf = (v: string | null) => (v ? (/^(\d+\.\d+)/.exec(v)?.[1] ?? "unknown") : "unknown");

const COMPARE: Record<SortKey, (a: FleetCluster, b: FleetCluster) => number> = {
  name: (a, b) => a.name.localeCompare(b.name),
  version: (a, b) => versionKey(a.version) - versionKey(b.version),
  skew: (a, b) => SKEW_ORDER.indexOf(a.skewStatus) - SKEW_ORDER.indexOf(b.skewStatus),
  oldest: (a, b) => versionKey(a.oldestBootImage) - versionKey(b.oldestBootImage),
  readiness: (a, b) => READINESS_ORDER.indexOf(a.readinessStatus) - READINESS_ORDER.indexOf(b.readinessStatus),
  lastSeen: (a, b) => (a.lastSeenAt ?? "").localeCompare(b.lastSeenAt ?? ""),
};

type Filters = {
  search: string;
  platform: string;
  version: string;
  skew: string;
  mode: string;
  readiness: string;
  label: string;
  stale: boolean;
};
const NO_FILTERS: Filters = { search: "", platform: "", version: "", skew: "", mode: "", readiness: "", label: "", stale: false };

export function matches(c: FleetCluster, f: Filters): boolean {
  if (f.platform && (c.platform ?? "unknown") !== f.platform) return false;
  if (f.version && minorOf(c.version) !== f.version) return false;
  if (f.skew && c.skewStatus !== f.skew) return false;
  if (f.mode && (c.enforcementMode ?? "unknown") !== f.mode) return false;
  if (f.readiness && c.readinessStatus !== f.readiness) return false;
  if (f.stale && !c.stale) return false;
  if (f.label) {
    const [k, v] = f.label.split("=", 2).map((s) => s.trim());
    if (!k || !(k in c.labels) || (v !== undefined && v !== "" && c.labels[k] !== v)) return false;
  }
  if (f.search) {
    const q = f.search.toLowerCase();
    const hay = `${c.name} ${c.displayName} ${c.version ?? ""} ${c.platform ?? ""} ${Object.entries(c.labels)
      .map(([k, v]) => `${k}=${v}`)
      .join(" ")}`.toLowerCase();
    if (!hay.includes(q)) return false;
  }
  return true;
}

function StatTile({
  label,
  value,
  tone,
  onClick,
  active,
}: {
  label: string;
  value: number;
  tone: string;
  onClick?: () => void;
  active?: boolean;
}) {
  return (
    <button
      type="button"
      onClick={onClick}
      aria-pressed={active}
      className={`flex min-w-28 flex-col rounded-md border px-3 py-2 text-left transition hover:bg-canvas ${active ? "border-accent" : "border-line"}`}
    >
      <span className={`text-2xl font-semibold ${tone}`}>{value.toLocaleString()}</span>
      <span className="text-xs text-muted">{label}</span>
    </button>
  );
}

const ROW_HEIGHT = 56;
const COLUMNS = "minmax(12rem,2fr) 6rem 6rem 8rem 8rem 7rem minmax(10rem,1.5fr) 10rem";

export function FleetView({ initial }: { initial: Seed<FleetCluster[]> }) {
  const clusters = useSeededQuery({ ...queries.clusters(), refetchInterval: REFRESH_MS }, initial);
  const summary = useQuery({ ...queries.fleetSummary(), refetchInterval: REFRESH_MS });
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const deferred = useDeferredValue(filters);
  const [sort, setSort] = useState<{ key: SortKey; desc: boolean }>({ key: "skew", desc: false });
  const all = clusters.data;

  const options = useMemo(() => {
    const uniq = (xs: string[]) => [...new Set(xs)].sort((a, b) => versionKey(a) - versionKey(b) || a.localeCompare(b));
    return {
      platforms: uniq(all.map((c) => c.platform ?? "unknown")),
      versions: uniq(all.map((c) => minorOf(c.version))),
      modes: uniq(all.map((c) => c.enforcementMode ?? "unknown")),
    };
  }, [all]);

  const rows = useMemo(() => {
    const filtered = all.filter((c) => matches(c, deferred));
    const cmp = COMPARE[sort.key];
    return filtered.sort((a, b) => (sort.desc ? -1 : 1) * (cmp(a, b) || a.name.localeCompare(b.name)));
  }, [all, deferred, sort]);

  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  const set = (patch: Partial<Filters>) => setFilters((f) => ({ ...f, ...patch }));
  const s = summary.data;

  const header = (key: SortKey | null, label: string) =>
    key ? (
      <button
        type="button"
        className="flex items-center gap-1 font-medium hover:text-ink"
        onClick={() => setSort((cur) => ({ key, desc: cur.key === key ? !cur.desc : false }))}
        aria-label={`Sort by ${label}`}
      >
        {label}
        <span aria-hidden className="text-xs">
          {sort.key === key ? (sort.desc ? "▼" : "▲") : ""}
        </span>
      </button>
    ) : (
      <span className="font-medium">{label}</span>
    );

  if (all.length === 0)
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
      <div className="grid gap-4 lg:grid-cols-3">
        <Card className="p-4 lg:col-span-2">
          <div className="flex flex-wrap items-baseline justify-between gap-2">
            <h2 className="font-semibold">Boot-image skew</h2>
            <LastUpdated at={clusters.dataUpdatedAt} fetching={clusters.isFetching} />
          </div>
          <div className="mt-3 flex flex-wrap gap-2" role="group" aria-label="Clusters by skew status">
            {SKEW_ORDER.map((k) => (
              <StatTile
                key={k}
                label={SKEW[k].label}
                value={s?.bySkew[k] ?? all.filter((c) => c.skewStatus === k).length}
                tone={SKEW[k].className.split(" ").find((c) => c.startsWith("text-")) ?? ""}
                active={filters.skew === k}
                onClick={() => set({ skew: filters.skew === k ? "" : k })}
              />
            ))}
          </div>
          <h2 className="mt-5 font-semibold">Readiness for the next minor</h2>
          <div className="mt-3 flex flex-wrap gap-2" role="group" aria-label="Clusters by readiness">
            {READINESS_ORDER.map((k) => (
              <StatTile
                key={k}
                label={READINESS[k].label}
                value={s?.byReadiness[k] ?? all.filter((c) => c.readinessStatus === k).length}
                tone={READINESS[k].className.split(" ").find((c) => c.startsWith("text-")) ?? ""}
                active={filters.readiness === k}
                onClick={() => set({ readiness: filters.readiness === k ? "" : k })}
              />
            ))}
            <StatTile
              label="Stale"
              value={s?.stale ?? all.filter((c) => c.stale).length}
              tone="text-warn"
              active={filters.stale}
              onClick={() => set({ stale: !filters.stale })}
            />
          </div>
          {s?.mostCommonBlocker ? (
            <p className="mt-3 text-sm">
              Most common blocker: <strong>{s.mostCommonBlocker.title}</strong> ({s.mostCommonBlocker.clusters} cluster
              {s.mostCommonBlocker.clusters === 1 ? "" : "s"})
            </p>
          ) : null}
        </Card>
        <Card className="p-4">
          <h2 className="font-semibold">Versions</h2>
          <div
            className="mt-2 h-44"
            role="img"
            aria-label={`Cluster versions: ${(s?.versions ?? []).map((v) => `${v.minor}: ${v.count}`).join(", ")}`}
          >
            <ResponsiveContainer width="100%" height="100%">
              <BarChart data={s?.versions ?? []} margin={{ top: 4, right: 4, bottom: 0, left: -20 }}>
                <XAxis dataKey="minor" tick={{ fontSize: 11 }} />
                <YAxis allowDecimals={false} tick={{ fontSize: 11 }} />
                <Tooltip />
                <Bar
                  dataKey="count"
                  name="clusters"
                  fill="#0b63c5"
                  onClick={(bar) => {
                    // recharts hands back the bar's own data point: one of summary.versions.
                    const minor = String(bar.payload?.minor ?? "");
                    set({ version: filters.version === minor ? "" : minor });
                  }}
                />
              </BarChart>
            </ResponsiveContainer>
          </div>
        </Card>
      </div>

      <FleetTimelineChart />

      <Card>
        <form className="flex flex-wrap items-end gap-3 border-b border-line p-4" role="search" onSubmit={(e) => e.preventDefault()}>
          <label className="flex flex-col gap-1 text-sm">
            <span className="font-medium">Search</span>
            <TextInput
              type="search"
              placeholder="name, version, label…"
              value={filters.search}
              onChange={(e) => set({ search: e.target.value })}
            />
          </label>
          {(
            [
              ["platform", "Platform", options.platforms],
              ["version", "Version", options.versions],
              ["skew", "Skew", SKEW_ORDER],
              ["mode", "Enforcement", options.modes],
              ["readiness", "Readiness", READINESS_ORDER],
            ] as const
          ).map(([key, label, values]) => (
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
              <Select value={filters[key]} onChange={(e) => set({ [key]: e.target.value })}>
                <option value="">All</option>
                {values.map((v) => (
                  <option key={v} value={v}>
                    {key === "skew" ? SKEW[v as SkewStatus].label : key === "readiness" ? READINESS[v as CheckStatus].label : v}
                  </option>
                ))}
              </Select>
            </label>
          ))}
          <label className="flex flex-col gap-1 text-sm">
            <span className="font-medium">Label</span>
            <TextInput placeholder="key=value" value={filters.label} onChange={(e) => set({ label: e.target.value })} className="w-36" />
          </label>
          <label className="flex items-center gap-2 pb-2 text-sm">
            <input type="checkbox" checked={filters.stale} onChange={(e) => set({ stale: e.target.checked })} /> Stale only
          </label>
          <p className="ml-auto pb-2 text-sm text-muted" aria-live="polite">
            {rows.length.toLocaleString()} of {all.length.toLocaleString()} clusters
          </p>
        </form>
        {clusters.error ? (
          <div className="p-4">
            <Alert tone="error">Could not refresh the fleet: {(clusters.error as Error).message}</Alert>
          </div>
        ) : null}
        <div role="table" aria-label="Clusters" aria-rowcount={rows.length + 1} className="text-sm">
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
          <div
            ref={scroller}
            role="rowgroup"
            className="overflow-auto"
            style={{ height: Math.min(640, Math.max(ROW_HEIGHT * 2, rows.length * ROW_HEIGHT)) }}
          >
            <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
              {virtualizer.getVirtualItems().map((item) => {
                const c = rows[item.index]!;
                return (
                  <div
                    key={c.id}
                    role="row"
                    aria-rowindex={item.index + 2}
                    className="absolute left-0 grid w-full items-center gap-3 border-b border-line px-4 hover:bg-canvas"
                    style={{ height: ROW_HEIGHT, transform: `translateY(${item.start}px)`, gridTemplateColumns: COLUMNS }}
                  >
                    <div role="cell" className="truncate">
                      <Link href={`/clusters/${encodeURIComponent(c.name)}`} className="font-medium text-accent hover:underline">
                        {c.displayName}
                      </Link>
                      <div className="truncate text-xs text-muted">
                        {c.displayName !== c.name ? `${c.name} · ` : ""}
                        {c.offline ? "offline import · " : ""}
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
      </Card>
    </div>
  );
}
