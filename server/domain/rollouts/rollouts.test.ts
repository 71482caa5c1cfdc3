import { describe, expect, it } from "vitest";
import { parseAmount, resolveAmount } from "./amount";
import { kubernetesDuration, parseDuration } from "./duration";
import { planWaves, type PlanCandidate, type PlanStrategy } from "./plan";
import { estimateRollout } from "./estimate";
import { DEFAULT_UPGRADE_PROGRESS_DEADLINE_MS, withResolvedProgressDeadline } from "./deadline";
import { RolloutRequestSchema } from "./request";
import { checkWindow, checkWindowFits, nextStart, windowAt, type MaintenanceWindow } from "./windows";

const strategy = (over: Partial<PlanStrategy> = {}): PlanStrategy => ({
  canaries: 0,
  maxConcurrency: null,
  groupBy: null,
  mandatoryGroups: [],
  maxFailures: { count: 0 },
  ...over,
});
const fleet = (n: number, labels: (i: number) => Record<string, string> = () => ({})): PlanCandidate[] =>
  Array.from({ length: n }, (_, i) => ({ name: `site-${String(i).padStart(2, "0")}`, labels: labels(i) }));

describe("durations as Kubernetes writes them", () => {
  it("reads hours, minutes and seconds, and shows them back", () => {
    expect(parseDuration("30m")).toEqual({ ok: true, ms: 1_800_000 });
    expect(parseDuration("1h30m")).toEqual({ ok: true, ms: 5_400_000 });
    expect(parseDuration("1.5h")).toEqual({ ok: true, ms: 5_400_000 });
    expect(kubernetesDuration(5_400_000)).toBe("1h30m");
    expect(kubernetesDuration(90_000)).toBe("1m30s");
  });
  it("refuses what Go's ParseDuration would not take for a rollout", () => {
    for (const bad of ["", "30", "m", "2d", "-5m", "30 m", "1m1h"]) expect(parseDuration(bad).ok, bad).toBe(false);
    expect(parseDuration("2d")).toMatchObject({ reason: expect.stringMatching(/such as 30m, 2h or 1h30m/) });
  });
});

describe("counts and percentages", () => {
  it("reads numbers and percentages, refusing zero concurrency and over 100%", () => {
    expect(parseAmount(10, { min: 1 })).toEqual({ ok: true, amount: { count: 10 } });
    expect(parseAmount("25%", { min: 1 })).toEqual({ ok: true, amount: { percent: 25 } });
    expect(parseAmount(0, { min: 1 })).toMatchObject({ ok: false, reason: expect.stringMatching(/at least 1/) });
    expect(parseAmount("0%", { min: 1 }).ok).toBe(false);
    expect(parseAmount("150%", { min: 0 })).toMatchObject({ ok: false, reason: "150% is over 100%" });
    expect(parseAmount(0, { min: 0 })).toEqual({ ok: true, amount: { count: 0 } });
    expect(parseAmount("ten", { min: 0 }).ok).toBe(false);
  });
  it("rounds percentages up, as Open Cluster Management's calculateRolloutSize does, and caps at the total", () => {
    expect(resolveAmount({ percent: 10 }, 5)).toBe(1);
    expect(resolveAmount({ percent: 25 }, 10)).toBe(3);
    expect(resolveAmount({ count: 100 }, 50)).toBe(50);
  });
});

describe("planning waves", () => {
  it("puts the canaries first, then batches of maxConcurrency in name order", () => {
    const plan = planWaves(fleet(60).reverse(), strategy({ canaries: 2, maxConcurrency: { count: 10 } }));
    if (!plan.ok) throw new Error(plan.reason);
    expect(plan.waves.map((w) => [w.name, w.clusters.length])).toEqual([
      ["canaries", 2],
      ["wave 1", 10],
      ["wave 2", 10],
      ["wave 3", 10],
      ["wave 4", 10],
      ["wave 5", 10],
      ["wave 6", 8],
    ]);
    expect(plan.waves[0]!.clusters).toEqual(["site-00", "site-01"]);
    expect(plan.waves[1]!.clusters[0]).toBe("site-02");
    expect(plan.waves.flatMap((w) => w.clusters)).toHaveLength(60);
  });

  it("takes named canaries, and refuses one outside the selection", () => {
    const plan = planWaves(fleet(5), strategy({ canaries: ["site-03"], maxConcurrency: { percent: 50 } }));
    expect(plan.ok && plan.waves.map((w) => w.clusters)).toEqual([["site-03"], ["site-00", "site-01"], ["site-02", "site-04"]]);
    expect(planWaves(fleet(5), strategy({ canaries: ["elsewhere"] }))).toMatchObject({ ok: false, field: "strategy.canaries" });
    expect(planWaves(fleet(3), strategy({ canaries: 3 }))).toMatchObject({ ok: false, field: "strategy.canaries" });
  });

  it("groups by a label: mandatory groups first, then the others by name, clusters without the label last", () => {
    const site = (i: number): Record<string, string> => (i === 9 ? {} : { region: ["emea", "amer", "apac"][i % 3]! });
    const plan = planWaves(fleet(10, site), strategy({ groupBy: "region", mandatoryGroups: ["apac"], maxFailures: { percent: 10 } }));
    if (!plan.ok) throw new Error(plan.reason);
    expect(plan.waves.map((w) => [w.name, w.mandatory, w.clusters.length])).toEqual([
      ["region=apac", true, 3],
      ["region=amer", false, 3],
      ["region=emea", false, 3],
      ["region=(no region)", false, 1],
    ]);
    expect(plan.failureBudget).toBe(1);
    expect(planWaves(fleet(4, site), strategy({ groupBy: "region", mandatoryGroups: ["mars"] }))).toMatchObject({
      ok: false,
      reason: "no selected cluster has region=mars",
    });
  });

  it("splits a group larger than maxConcurrency into parts", () => {
    const plan = planWaves(
      fleet(5, () => ({ site: "plant-3" })),
      strategy({ groupBy: "site", maxConcurrency: { count: 2 } }),
    );
    expect(plan.ok && plan.waves.map((w) => w.name)).toEqual(["site=plant-3 (1/3)", "site=plant-3 (2/3)", "site=plant-3 (3/3)"]);
  });
});

describe("maintenance windows", () => {
  const saturdayNight = checkWindow({ schedule: "0 2 * * 6", duration: "4h", timeZone: "Europe/Paris" });
  const window = (saturdayNight.ok ? saturdayNight.window : null) as MaintenanceWindow;

  it("refuses an invalid cron, an unknown time zone and a zero duration, naming the field", () => {
    expect(checkWindow({ schedule: "0 2 * *", duration: "4h", timeZone: "UTC" })).toMatchObject({ ok: false, field: "schedule" });
    expect(checkWindow({ schedule: "0 25 * * *", duration: "4h", timeZone: "UTC" })).toMatchObject({ ok: false, field: "schedule" });
    expect(checkWindow({ schedule: "0 2 * * 6", duration: "4h", timeZone: "Mars/Olympus" })).toMatchObject({
      ok: false,
      field: "timeZone",
    });
    expect(checkWindow({ schedule: "0 2 * * 6", duration: "0s", timeZone: "UTC" })).toMatchObject({ ok: false, field: "duration" });
  });

  it("is open from its cron time for its duration, in its own time zone", () => {
    // Saturday 2026-11-28 02:00 in Paris is 01:00 UTC (winter time).
    expect(windowAt(window, new Date("2026-11-28T01:30:00Z"))).toEqual({ open: true, closesAt: new Date("2026-11-28T05:00:00Z") });
    expect(windowAt(window, new Date("2026-11-28T05:00:00Z"))).toEqual({
      open: false,
      opensAt: new Date("2026-12-05T01:00:00Z"),
      closesAt: new Date("2026-12-05T05:00:00Z"),
    });
    expect(windowAt(window, new Date("2026-11-26T12:00:00Z"))).toMatchObject({ open: false, opensAt: new Date("2026-11-28T01:00:00Z") });
  });

  it("starts a step only where it ends before the window closes", () => {
    const hour = 3_600_000;
    expect(nextStart(window, new Date("2026-11-28T01:30:00Z"), hour)).toEqual(new Date("2026-11-28T01:30:00Z"));
    expect(nextStart(window, new Date("2026-11-28T04:30:00Z"), hour)).toEqual(new Date("2026-12-05T01:00:00Z"));
    expect(checkWindowFits(window, 5 * hour)).toMatch(/shorter than a cluster's expected step/);
    expect(checkWindowFits(window, hour)).toBeNull();
  });
});

describe("a rollout request", () => {
  const base = { kind: "upgrade", target: "4.19.11", selection: { query: "platform=AWS" } };
  const issue = (body: unknown) => {
    const parsed = RolloutRequestSchema.safeParse(body);
    return parsed.success ? null : `${parsed.error.issues[0]!.path.join(".")}: ${parsed.error.issues[0]!.message}`;
  };

  it("takes the issue's shape, with Kubernetes durations and defaults", () => {
    const parsed = RolloutRequestSchema.parse({
      ...base,
      strategy: { canaries: 2, maxConcurrency: "10%", minSuccessTime: "30m", progressDeadline: "2h", maxFailures: 2 },
      windows: { default: { schedule: "0 2 * * 6", duration: "4h", timeZone: "Europe/Paris" } },
      dryRun: true,
    });
    expect(parsed.strategy).toMatchObject({
      canaries: 2,
      maxConcurrency: { percent: 10 },
      minSuccessTime: 1_800_000,
      progressDeadline: 7_200_000,
      maxFailures: { count: 2 },
      onFailure: "pause",
    });
    expect(parsed.windows?.default).toEqual({ schedule: "0 2 * * 6", durationMs: 14_400_000, timeZone: "Europe/Paris" });
    // Omitted, an upgrade gets TALM's default of 240 minutes; `None` is no deadline.
    const omitted = RolloutRequestSchema.parse(base);
    expect(omitted.strategy.progressDeadline).toBeUndefined();
    expect(withResolvedProgressDeadline(omitted).strategy.progressDeadline).toBe(DEFAULT_UPGRADE_PROGRESS_DEADLINE_MS);
    expect(DEFAULT_UPGRADE_PROGRESS_DEADLINE_MS).toBe(240 * 60_000);
    const none = RolloutRequestSchema.parse({ ...base, strategy: { progressDeadline: "None" } });
    expect(withResolvedProgressDeadline(none).strategy.progressDeadline).toBeNull();
  });

  it("names the field of every bad strategy, window or write", () => {
    expect(issue({ ...base, strategy: { maxConcurrency: 0 } })).toMatch(/^strategy\.maxConcurrency: must be a whole number of at least 1/);
    expect(issue({ ...base, strategy: { maxFailures: "120%" } })).toBe("strategy.maxFailures: 120% is over 100%");
    expect(issue({ ...base, strategy: { minSuccessTime: "2 days" } })).toMatch(/^strategy\.minSuccessTime: /);
    expect(issue({ ...base, strategy: { mandatoryGroups: ["emea"] } })).toMatch(
      /^strategy\.mandatoryGroups: mandatoryGroups needs groupBy/,
    );
    expect(issue({ ...base, windows: { default: { schedule: "every night", duration: "4h" } } })).toMatch(/^windows\.default\.schedule: /);
    expect(issue({ ...base, windows: { default: { schedule: "0 2 * * *", duration: "4h", timeZone: "Europe/Atlantis" } } })).toMatch(
      /^windows\.default\.timeZone: /,
    );
    expect(issue({ ...base, target: "latest" })).toBe("target: target must be a release such as 4.19.11");
    expect(issue({ ...base, kind: "bundle", target: undefined, bundle: "abc" })).toMatch(/^bundle: /);
    const { target: _target, ...common } = base;
    const bundle = { ...common, kind: "bundle", bundle: "a".repeat(64) };
    expect(issue({ ...bundle, unpinAfter: true })).toMatch(/^unpinAfter: unpinAfter needs startUpgrade/);
    expect(issue({ ...bundle, unpinAfter: true, startUpgrade: true })).toBeNull();
    expect(issue({ ...base, selection: { clusters: [] } })).toMatch(/selection/);
    const ack = {
      kind: "acknowledgement",
      selection: { clusters: ["a"] },
      acknowledgement: { mode: "OCPVersion", evidence: "checked the AMIs in the console" },
    };
    expect(issue(ack)).toBe("acknowledgement.ocpVersion: say which OCP version the oldest machine's boot image came with, e.g. 4.19.0");
    expect(issue({ ...ack, acknowledgement: { ...ack.acknowledgement, ocpVersion: "4.12.0" } })).toBeNull();
  });
});

describe("the estimate", () => {
  const hour = 3_600_000;
  const plan = planWaves(
    fleet(6, (i) => ({ site: i < 3 ? "a" : "b" })),
    strategy({ canaries: 1, maxConcurrency: { count: 3 } }),
  );
  const waves = plan.ok ? plan.waves : [];

  it("adds each wave's step and the soak between waves", () => {
    const estimate = estimateRollout(waves, {
      start: new Date("2026-11-26T00:00:00Z"),
      stepMs: hour,
      minSuccessMs: 30 * 60_000,
      windowOf: () => null,
    });
    expect(waves.map((w) => w.clusters.length)).toEqual([1, 3, 2]);
    expect(estimate.totalMs).toBe(3 * hour + 2 * 30 * 60_000);
    expect(estimate.waves.every((w) => !w.waitsForWindow)).toBe(true);
  });

  it("holds a wave until every one of its clusters' windows is open for a whole step", () => {
    const nightly = checkWindow({ schedule: "0 1 * * *", duration: "3h", timeZone: "UTC" });
    const window = nightly.ok ? nightly.window : null;
    const estimate = estimateRollout(waves, {
      start: new Date("2026-11-26T12:00:00Z"),
      stepMs: hour,
      minSuccessMs: 0,
      windowOf: (cluster) => (cluster === "site-05" ? window : null),
    });
    expect(estimate.waves.map((w) => [w.name, w.startsAt.toISOString(), w.waitsForWindow])).toEqual([
      ["canaries", "2026-11-26T12:00:00.000Z", false],
      ["wave 1", "2026-11-26T13:00:00.000Z", false],
      ["wave 2", "2026-11-27T01:00:00.000Z", true],
    ]);
    expect(estimate.finishesAt.toISOString()).toBe("2026-11-27T02:00:00.000Z");
  });
});
