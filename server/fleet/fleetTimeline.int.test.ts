import { beforeAll, describe, expect, it } from "vitest";
import { FLEET_WIDE } from "../domain/grants";
import { getPool } from "../store/db";
import { useMigratedDatabase } from "../testing/database";
import { seedFleetRows } from "../testing/fleetRows";
import { fleetTimeline } from "./fleet";
import { timeWindow } from "./requestContract";

useMigratedDatabase();

const DAY = 86_400_000;
const NOW = new Date("2026-11-20T10:30:00.000Z");
const STATUSES = ["ok", "at-risk", "blocked", "unknown", "opted-out"];

/** One change of one cluster's skew: `status` null when the fact disappeared, "" when it had no status. */
type Change = { cluster: string; at: number; status: string | null; inferred: boolean; daily: boolean };

/** A small deterministic generator, so a failure can be reproduced. */
function random(seed: number) {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

/**
 * Forty clusters' skew over 420 days: some backfilled (inferred) at first, older changes folded into
 * daily rows, a fact that disappears, a value with no status; each cluster's changes at distinct times.
 */
function history(): Change[] {
  const next = random(42);
  const changes: Change[] = [];
  for (let c = 0; c < 40; c++) {
    const cluster = `tl-${String(c).padStart(2, "0")}`;
    const n = Math.floor(next() * 13);
    const times = new Set<number>();
    while (times.size < n) times.add(NOW.getTime() - Math.floor(next() * 420 * DAY));
    const sorted = [...times].sort((a, b) => a - b);
    sorted.forEach((at, k) => {
      const roll = next();
      const status = roll < 0.08 ? null : roll < 0.12 ? "" : STATUSES[Math.floor(next() * STATUSES.length)]!;
      changes.push({ cluster, at, status, inferred: c % 3 === 0 && k < 2, daily: at < NOW.getTime() - 200 * DAY && k % 2 === 0 });
    });
  }
  return changes;
}

/** What the chart must say, computed from the changes themselves: each step's counts after every change before its end. */
function expectedDays(changes: Change[], from: Date, to: Date) {
  const previous = new Map<string, Change>();
  const ordered = [...changes].sort((a, b) => a.at - b.at);
  const step = Math.max(DAY, Math.ceil((to.getTime() - from.getTime()) / 400 / DAY) * DAY);
  const counts: Record<string, number> = {};
  let inferred = 0;
  const days: { day: string; counts: Record<string, number>; inferred: number }[] = [];
  let i = 0;
  for (let end = Math.floor(from.getTime() / DAY) * DAY + DAY; end <= to.getTime() + step; end += step) {
    for (; i < ordered.length && ordered[i]!.at < end; i++) {
      const change = ordered[i]!;
      const before = previous.get(change.cluster);
      if (before?.status) counts[before.status] = counts[before.status]! - 1;
      if (change.status) counts[change.status] = (counts[change.status] ?? 0) + 1;
      inferred += (change.inferred ? 1 : 0) - (before?.inferred ? 1 : 0);
      previous.set(change.cluster, change);
    }
    days.push({ day: new Date(end - 1).toISOString().slice(0, 10), counts: { ...counts }, inferred });
  }
  return days;
}

const changes = history();

beforeAll(async () => {
  await seedFleetRows(Array.from(new Set(changes.map((c) => c.cluster)), (name) => ({ name })));
  const ids = new Map(
    (await getPool().query<{ id: string; name: string }>(`SELECT "id", "name" FROM "Cluster"`)).rows.map((r) => [r.name, r.id]),
  );
  for (const c of changes) {
    const value = c.status === null ? null : JSON.stringify(c.status === "" ? { summary: "no status" } : { status: c.status });
    const at = new Date(c.at).toISOString();
    if (c.daily)
      await getPool().query(
        `INSERT INTO "ClusterFactDaily" ("clusterId", "fact", "key", "day", "at", "value", "inferred")
         VALUES ($1, 'skew', '', $2::timestamp::date, $2::timestamp, $3::jsonb, $4)`,
        [ids.get(c.cluster), at.replace("Z", ""), value, c.inferred],
      );
    else
      await getPool().query(
        `INSERT INTO "ClusterFact" ("clusterId", "at", "fact", "key", "value", "inferred") VALUES ($1, $2::timestamp, 'skew', '', $3::jsonb, $4)`,
        [ids.get(c.cluster), at.replace("Z", ""), value, c.inferred],
      );
  }
  // Another fact of the same clusters, which the chart does not count.
  await getPool().query(
    `INSERT INTO "ClusterFact" ("clusterId", "at", "fact", "key", "value") SELECT "id", now(), 'version', '', '{"status":"ok"}' FROM "Cluster"`,
  );
});

describe("the fleet's skew over time", () => {
  it("counts each status at the end of every step, and the clusters whose status is inferred, as the changes say", async () => {
    expect(changes.filter((c) => c.daily).length).toBeGreaterThan(5);
    expect(changes.filter((c) => c.inferred).length).toBeGreaterThan(5);
    for (const [days, to] of [
      [30, NOW],
      [365, NOW],
      [5 * 365, NOW],
      [90, new Date(NOW.getTime() - 300 * DAY)],
    ] as const) {
      const window = timeWindow(days, undefined, to);
      const timeline = await fleetTimeline(FLEET_WIDE, window);
      const expected = expectedDays(changes, window.from, window.to);
      expect(timeline.days.length, `${days} days`).toBe(expected.length);
      expect(timeline.days, `${days} days`).toEqual(expected);
    }
    // Today: every cluster whose newest change has a status is counted once.
    const today = (await fleetTimeline(FLEET_WIDE, timeWindow(30, undefined, NOW))).days.at(-1)!;
    const newest = new Map<string, Change>();
    for (const c of [...changes].sort((a, b) => a.at - b.at)) newest.set(c.cluster, c);
    const withStatus = [...newest.values()].filter((c) => c.status).length;
    expect(Object.values(today.counts).reduce((a, b) => a + b, 0)).toBe(withStatus);
  });
});
