import { describe, expect, it } from "vitest";
import { nextStart, windowAt, windowTimeline, type MaintenanceWindow } from "./windows";

const HOUR = 3_600_000;

/** A time series that mostly moves forward, with steps back and times exactly on openings and closings. */
function times(start: number, openings: number[], durationMs: number): Date[] {
  const out: number[] = [];
  let t = start;
  let seed = 7;
  const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  for (let i = 0; i < 400; i++) {
    t += Math.floor(random() * 5 * HOUR) - (i % 9 === 0 ? 3 * HOUR : 0);
    out.push(t);
  }
  for (const o of openings) out.push(o, o - 1, o + 1, o + durationMs, o + durationMs - 1);
  return out.map((ms) => new Date(ms));
}

describe("a window's timeline", () => {
  const windows: [string, MaintenanceWindow][] = [
    ["nightly in Paris, across the autumn time change", { schedule: "0 1 * * *", durationMs: 5 * HOUR, timeZone: "Europe/Paris" }],
    ["hourly, open longer than an hour (openings overlap)", { schedule: "0 * * * *", durationMs: 3 * HOUR, timeZone: "UTC" }],
    ["Saturdays only, in New York", { schedule: "30 2 * * 6", durationMs: 2 * HOUR, timeZone: "America/New_York" }],
  ];
  const start = Date.parse("2026-10-20T00:00:00Z");

  for (const [what, window] of windows)
    it(`answers as windowAt does at every time asked: ${what}`, () => {
      const timeline = windowTimeline(window);
      const openings = [0, 1, 2, 3].map((d) => windowAt(window, new Date(start + d * 24 * HOUR)));
      const exact = openings.flatMap((s) => (s.open ? [] : [s.opensAt.getTime()]));
      for (const at of times(start, exact, window.durationMs)) expect(timeline(at), at.toISOString()).toEqual(windowAt(window, at));
    });

  it("gives a plan's next start as windowAt does", () => {
    const window = windows[0]![1];
    const timeline = windowTimeline(window);
    let at = new Date(start);
    for (let wave = 0; wave < 200; wave++) {
      const expected = nextStart(window, at, 45 * 60_000);
      expect(nextStart(window, at, 45 * 60_000, timeline)).toEqual(expected);
      at = new Date(expected.getTime() + 75 * 60_000);
    }
  });
});
