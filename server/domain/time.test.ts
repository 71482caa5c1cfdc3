import { describe, expect, it } from "vitest";
import { isDateOnly, parseIsoTime } from "./time";

describe("ISO 8601 dates and times from people and scripts", () => {
  it.each([
    ["2026-11-01", "2026-11-01T00:00:00.000Z"],
    ["2026-02-28T23:59:59Z", "2026-02-28T23:59:59.000Z"],
    ["2026-11-01T08:00+02:00", "2026-11-01T06:00:00.000Z"],
    ["2024-02-29", "2024-02-29T00:00:00.000Z"],
  ])("%s is %s", (text, iso) => {
    expect(parseIsoTime(text)?.toISOString()).toBe(iso);
  });

  it.each(["2026-02-30", "2025-02-29", "2026-13-01", "2026-11-01T25:00Z", "0000-01-01", "yesterday", "2026-11-1", "2026-11-01 08:00", ""])(
    "%j is refused, not moved to another day",
    (text) => {
      expect(parseIsoTime(text)).toBeNull();
    },
  );

  it("tells a date from a time", () => {
    expect([isDateOnly("2026-11-01"), isDateOnly("2026-11-01T00:00Z")]).toEqual([true, false]);
  });
});
