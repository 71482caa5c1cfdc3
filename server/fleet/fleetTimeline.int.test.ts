import { beforeAll, describe, expect, it } from "vitest";
import { FLEET_WIDE } from "../domain/grants";
import { getPool } from "../store/db";
import { refreshKeptFleetFactDays } from "../store/history";
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
/** The clusters with history, in order. */
const names = [...new Set(changes.map((c) => c.cluster))].sort();
const ids = new Map<string, string>();

/** A change's skew fact as stored: none when it disappeared, a summary alone when it had no status. */
const storedValue = (c: Change) =>
  c.status === null ? null : JSON.stringify(c.status === "" ? { summary: "no status" } : { status: c.status });

/** Writes changes as the history holds them: detail rows, or daily rows for the folded ones. */
async function write(list: Change[]) {
  for (const c of list) {
    const value = storedValue(c);
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
}

/** Writes changes as one statement, as a first sweep writes a cluster's inferred history and its present. */
async function writeAtOnce(list: Change[]) {
  await getPool().query(
    `INSERT INTO "ClusterFact" ("clusterId", "at", "fact", "key", "value", "inferred")
     SELECT r."clusterId", r."at", 'skew', '', r."value"::jsonb, r."inferred"
       FROM unnest($1::uuid[], $2::timestamp[], $3::text[], $4::boolean[]) AS r("clusterId", "at", "value", "inferred")`,
    [
      list.map((c) => ids.get(c.cluster)),
      list.map((c) => new Date(c.at).toISOString().replace("Z", "")),
      list.map(storedValue),
      list.map((c) => c.inferred),
    ],
  );
}

/** New clusters, registered now, with no history yet. */
async function register(...clusters: string[]) {
  await seedFleetRows(clusters.map((name) => ({ name })));
  const { rows } = await getPool().query<{ id: string; name: string }>(`SELECT "id", "name" FROM "Cluster" WHERE "name" = ANY($1)`, [
    clusters,
  ]);
  for (const r of rows) ids.set(r.name, r.id);
}

/** How many new clusters' parts wait to be folded into the sums (migration 20261129203000_fleet_fact_day_added). */
async function addedParts() {
  return (await getPool().query<{ n: number }>(`SELECT count(*)::int AS "n" FROM "FleetFactDayAdded"`)).rows[0]!.n;
}

/** A new cluster's first sweep: its history inferred back to `days` ago, a change or two since, and its present. */
function firstSweep(cluster: string, days: number, statuses: (string | null)[]): Change[] {
  const now = Date.now();
  return statuses.map((status, k) => ({
    cluster,
    at: k === statuses.length - 1 ? now - 1000 : now - days * DAY + k * Math.floor((days * DAY) / statuses.length) + 777,
    status,
    inferred: k < 2,
    daily: false,
  }));
}

/** The kept sums' state (migration 20261129180000_fleet_fact_days). */
async function kept() {
  const { rows } = await getPool().query<{ through: string; dirtySince: string | null; refreshedAt: string | null; days: number }>(
    `SELECT "through"::text AS "through", "dirtySince"::text AS "dirtySince", "refreshedAt"::text AS "refreshedAt",
            (SELECT count(*)::int FROM "FleetFactDay" d WHERE d."fact" = k."fact") AS "days"
       FROM "FleetFactDayKept" k WHERE "fact" = 'skew' AND "field" = 'status'`,
  );
  return rows[0]!;
}

/** The chart of every window the first test reads, and one ending now, against the reference. */
async function expectChartsToAgree(all: Change[]) {
  for (const [days, to] of [
    [30, NOW],
    [365, NOW],
    [5 * 365, NOW],
    [90, new Date(NOW.getTime() - 300 * DAY)],
    [60, new Date()],
  ] as const) {
    const window = timeWindow(days, undefined, to);
    const timeline = await fleetTimeline(FLEET_WIDE, window);
    const expected = expectedDays(all, window.from, window.to);
    expect(timeline.days.length, `${days} days`).toBe(expected.length);
    expect(timeline.days, `${days} days to ${to.toISOString()}`).toEqual(expected);
  }
}

beforeAll(async () => {
  await seedFleetRows(Array.from(new Set(changes.map((c) => c.cluster)), (name) => ({ name })));
  for (const r of (await getPool().query<{ id: string; name: string }>(`SELECT "id", "name" FROM "Cluster"`)).rows) ids.set(r.name, r.id);
  await write(changes);
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

describe("the fleet's skew over time, from the days kept summed", () => {
  let all = [...changes];

  it("sums the history's days once, and counts only the changes since from history", async () => {
    // Never summed: every change is read.
    expect((await kept()).dirtySince).toBe("-infinity");
    await expectChartsToAgree(all);
    expect(await refreshKeptFleetFactDays({ stale: true })).toBe(1);
    const before = await kept();
    expect(before.dirtySince).toBeNull();
    expect(before.days).toBeGreaterThan(50);
    expect(Date.parse(`${before.through.replace(" ", "T")}Z`)).toBe(Math.floor((Date.now() - 3_600_000) / DAY) * DAY);
    // Holding and summed today: the hourly upkeep leaves them.
    expect(await refreshKeptFleetFactDays({ stale: true })).toBe(0);
    await expectChartsToAgree(all);
    // Changes written now, after `through`: each cluster's first change since leaves a value summed
    // before; one cluster changes twice, one's fact disappears, one's value is inferred.
    const now = Date.now();
    const recent: Change[] = [
      { cluster: names[1]!, at: now - 60_000, status: "blocked", inferred: false, daily: false },
      { cluster: names[1]!, at: now - 30_000, status: "ok", inferred: false, daily: false },
      { cluster: names[2]!, at: now - 50_000, status: null, inferred: false, daily: false },
      { cluster: names[4]!, at: now - 40_000, status: "at-risk", inferred: true, daily: false },
      { cluster: names[7]!, at: now - 20_000, status: "opted-out", inferred: false, daily: false },
    ];
    await write(recent);
    all = [...all, ...recent];
    expect((await kept()).dirtySince).toBeNull();
    await expectChartsToAgree(all);
    // Read from the sums as they were: nothing was summed again.
    expect((await kept()).refreshedAt).toBe(before.refreshedAt);
  });

  it("adds a new cluster's whole history, written at once, to the sums without marking them, and folds it in hourly", async () => {
    const before = await kept();
    expect(before.dirtySince).toBeNull();
    await register("new-a", "new-b", "new-c");
    // Each one statement, as a first sweep writes it: inferred changes far back, one with no status,
    // one whose fact went away, and the present (after `through`, counted from history).
    const added = [
      ...firstSweep("new-a", 200, ["blocked", "at-risk", "", "ok", "blocked"]),
      ...firstSweep("new-b", 40, ["ok", null, "opted-out", "at-risk"]),
    ];
    await writeAtOnce(added.filter((c) => c.cluster === "new-a"));
    await writeAtOnce(added.filter((c) => c.cluster === "new-b"));
    // Two clusters at once, as an import writes them.
    const both = [...firstSweep("new-c", 90, ["at-risk", "ok", "unknown"])];
    await writeAtOnce(both);
    all = [...all, ...added, ...both];
    expect((await kept()).dirtySince).toBeNull();
    expect(await addedParts()).toBeGreaterThan(5);
    await expectChartsToAgree(all);
    // The hourly upkeep folds the parts into the sums, summing nothing again.
    expect(await refreshKeptFleetFactDays({ stale: true })).toBe(0);
    expect(await addedParts()).toBe(0);
    const after = await kept();
    expect(after.refreshedAt).toBe(before.refreshedAt);
    expect(after.dirtySince).toBeNull();
    await expectChartsToAgree(all);
  });

  it("marks the sums when a statement writes a new cluster's history with an older cluster's past", async () => {
    await register("new-d");
    const mixed = [
      ...firstSweep("new-d", 30, ["ok", "blocked", "ok"]),
      { cluster: names[6]!, at: NOW.getTime() - 20 * DAY + 99, status: "unknown", inferred: false, daily: false },
    ];
    await writeAtOnce(mixed);
    all = [...all, ...mixed];
    expect((await kept()).dirtySince).not.toBeNull();
    await expectChartsToAgree(all);
    // A second statement into a new cluster's past is not its first either.
    expect(await refreshKeptFleetFactDays({ stale: true })).toBe(1);
    const again = [{ cluster: "new-a", at: Date.now() - 10 * DAY, status: "unknown", inferred: false, daily: false }];
    await writeAtOnce(again);
    all = [...all, ...again];
    expect((await kept()).dirtySince).not.toBeNull();
    await expectChartsToAgree(all);
    expect(await refreshKeptFleetFactDays({ stale: true })).toBe(1);
    await expectChartsToAgree(all);
  });

  it("marks the sums when one statement writes the first histories of more than a hundred clusters (a bulk import)", async () => {
    expect((await kept()).dirtySince).toBeNull();
    const many = Array.from({ length: 101 }, (_, i) => `bulk-${String(i).padStart(3, "0")}`);
    await register(...many);
    const imported = many.flatMap((cluster, i) => firstSweep(cluster, 20 + i, ["ok", "blocked"]));
    await writeAtOnce(imported);
    all = [...all, ...imported];
    expect((await kept()).dirtySince).not.toBeNull();
    expect(await addedParts()).toBe(0);
    await expectChartsToAgree(all);
    expect(await refreshKeptFleetFactDays({ stale: true })).toBe(1);
    await expectChartsToAgree(all);
  });

  it("reads every change after one is written into the summed past (a first sweep's inferred history), until summed again", async () => {
    const past: Change[] = [
      { cluster: names[5]!, at: NOW.getTime() - 100 * DAY + 1234, status: "blocked", inferred: true, daily: false },
      { cluster: names[9]!, at: NOW.getTime() - 3 * DAY + 567, status: "at-risk", inferred: false, daily: false },
    ];
    await write(past);
    all = [...all, ...past];
    expect((await kept()).dirtySince).toBe(new Date(past[0]!.at).toISOString().replace("T", " ").replace("Z", ""));
    await expectChartsToAgree(all);
    expect(await refreshKeptFleetFactDays({ stale: true })).toBe(1);
    expect((await kept()).dirtySince).toBeNull();
    await expectChartsToAgree(all);
  });

  it("reads every change after a cluster is removed, until summed again: its history leaves every day", async () => {
    await getPool().query(`DELETE FROM "Cluster" WHERE "name" = $1`, [names[3]]);
    all = all.filter((c) => c.cluster !== names[3]);
    expect((await kept()).dirtySince).toBe("-infinity");
    await expectChartsToAgree(all);
    expect(await refreshKeptFleetFactDays({ stale: true })).toBe(1);
    expect((await kept()).dirtySince).toBeNull();
    await expectChartsToAgree(all);
  });

  it("sums them again hourly once a day has passed since, so that yesterday is summed too", async () => {
    await refreshKeptFleetFactDays();
    const today = (await kept()).through;
    await getPool().query(`UPDATE "FleetFactDayKept" SET "through" = "through" - interval '1 day'`);
    expect(await refreshKeptFleetFactDays({ stale: true })).toBe(1);
    expect((await kept()).through).toBe(today);
    await expectChartsToAgree(all);
  });
});
