// The skew timeline's data as the chart draws it: pure, so it is tested without a browser.
import type { Timeline } from "@/server/fleet/contract";

/** A version as a number on the chart's axis: 4.12.7 → 412.007, so minors are evenly spaced. */
export function versionValue(v: string | null): number | null {
  const m = v ? /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(v) : null;
  return m ? Number(m[1]) * 100 + Number(m[2]) + Number(m[3] ?? 0) / 1000 : null;
}
export const tickLabel = (n: number) => `${Math.floor(n / 100)}.${Math.floor(n % 100)}`;

type Point = {
  t: number;
  cluster?: number | null;
  bootObserved?: number | null;
  bootInferred?: number | null;
  clusterInferred?: number | null;
};

/**
 * Merges the series into one row per instant. Inferred and observed parts are separate series so
 * they can be drawn differently; each gets the value at the seam so the lines join.
 */
export function chartRows(t: Timeline): Point[] {
  const rows = new Map<number, Point>();
  const row = (at: string) => {
    const k = new Date(at).getTime();
    let r = rows.get(k);
    if (!r) rows.set(k, (r = { t: k }));
    return r;
  };
  const series = <P extends { at: string; inferred: boolean }>(
    points: P[],
    value: (p: P) => number | null,
    observed: keyof Point,
    inferred: keyof Point,
  ) => {
    points.forEach((p, i) => {
      const v = value(p);
      const r = row(p.at);
      (r as Record<string, number | null>)[p.inferred ? inferred : observed] = v;
      const next = points[i + 1];
      // At the seam from inferred to observed, the observed series starts where the inferred ended.
      if (p.inferred && next && !next.inferred) (row(next.at) as Record<string, number | null>)[inferred] = v;
    });
    const last = points.at(-1);
    if (last) (row(t.to) as Record<string, number | null>)[last.inferred ? inferred : observed] = value(last);
  };
  series(t.version, (p) => versionValue(p.version), "cluster", "clusterInferred");
  series(t.oldestBootImage, (p) => versionValue(p.ocpVersion), "bootObserved", "bootInferred");
  const sorted = [...rows.values()].sort((a, b) => a.t - b.t);
  // Instants before any series has a value (a point whose version is not known) would only widen the
  // axis with an empty stretch: the chart starts where the first line does.
  const first = sorted.findIndex((r) => [r.cluster, r.clusterInferred, r.bootObserved, r.bootInferred].some((v) => typeof v === "number"));
  return first > 0 ? sorted.slice(first) : sorted;
}

/**
 * The upgrades worth a label on the chart: one at least a sixth of the time axis after the last
 * labelled, so version labels never run into each other ("4.174.184.19.10"); every event stays in
 * the list below the chart.
 */
export function labelledUpgrades(events: Timeline["events"], from: number, to: number): Set<number> {
  const gap = (to - from) / 6;
  const labelled = new Set<number>();
  let last = -Infinity;
  const upgrades = events
    .map((e, i) => ({ i, at: new Date(e.at).getTime(), kind: e.kind }))
    .filter((e) => e.kind === "upgrade" && e.at >= from && e.at <= to)
    .sort((a, b) => a.at - b.at);
  for (const e of upgrades) {
    if (e.at - last < gap) continue;
    labelled.add(e.i);
    last = e.at;
  }
  return labelled;
}
