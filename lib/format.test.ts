import { describe, expect, it } from "vitest";
import { formatDate, formatDay, formatDuration, NO_DATE } from "./format";

describe("the console's one date format", () => {
  it("writes a moment in UTC with the month as a word and the zone named", () => {
    expect(formatDate("2026-11-27T21:37:10.500Z")).toBe("27 Nov 2026, 21:37 UTC");
    expect(formatDate(new Date("2026-01-05T03:04:05Z"), { seconds: true })).toBe("5 Jan 2026, 03:04:05 UTC");
    expect(formatDate(Date.parse("2026-12-31T23:59:59Z"))).toBe("31 Dec 2026, 23:59 UTC");
  });

  it("is the same whatever the zone of the process that renders it", () => {
    // A moment near midnight UTC is another day in most zones; the text must not follow them.
    expect(formatDate("2026-11-27T23:30:00+01:00")).toBe("27 Nov 2026, 22:30 UTC");
  });

  it("writes a day alone for dates without a time of day", () => {
    expect(formatDay("2026-11-27T21:37:00Z")).toBe("27 Nov 2026");
  });

  it("writes a dash for no moment or text that is not one, never 'Invalid Date'", () => {
    expect(formatDate(null)).toBe(NO_DATE);
    expect(formatDate(undefined)).toBe(NO_DATE);
    expect(formatDate("yesterday-ish")).toBe(NO_DATE);
    expect(formatDay("")).toBe(NO_DATE);
  });
});

describe("the console's one duration format", () => {
  it("writes days, hours and minutes from an hour up, rounded to the minute", () => {
    expect(formatDuration(7 * 86_400_000 + 4 * 3_600_000 + 36 * 60_000 + 55_000)).toBe("7 d 4 h 37 min");
    expect(formatDuration(4.5 * 3_600_000)).toBe("4 h 30 min");
    expect(formatDuration(2 * 3_600_000)).toBe("2 h");
    expect(formatDuration(86_400_000 + 60_000)).toBe("1 d 1 min");
  });

  it("writes minutes and seconds below an hour", () => {
    expect(formatDuration(30 * 60_000)).toBe("30 min");
    expect(formatDuration(90_000)).toBe("1 min 30 s");
    expect(formatDuration(45_000)).toBe("45 s");
    expect(formatDuration(59 * 60_000 + 59_600)).toBe("1 h");
  });

  it("writes nothing, less than half a second, negative or non-finite lengths as 0 s", () => {
    expect(formatDuration(0)).toBe("0 s");
    expect(formatDuration(400)).toBe("0 s");
    expect(formatDuration(-5_000)).toBe("0 s");
    expect(formatDuration(Number.NaN)).toBe("0 s");
  });
});
