/**
 * The console's one way of writing a moment and a length of time, on every page and in every
 * sentence the server composes: "27 Nov 2026, 21:37 UTC" and "7 d 4 h 37 min".
 *
 * Moments are written in UTC with the zone named: a fleet spans time zones, the audit log and the
 * clusters' own timestamps are UTC, and a page rendered on the server reads the same once the
 * browser takes it over (a browser's locale and zone would make the two disagree). The month is a
 * word so no reader confuses 11/12 with 12/11.
 *
 * Pure and free of imports, so both the server and the browser's components import it (the one
 * module of server/domain that components take as a value besides the contracts; eslint.config.mjs).
 */

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] as const;
const two = (n: number) => String(n).padStart(2, "0");

/** What is written where there is no moment (null, or text that is not a date). */
export const NO_DATE = "—";

function toDate(at: Date | string | number | null | undefined): Date | null {
  if (at === null || at === undefined || at === "") return null;
  const date = at instanceof Date ? at : new Date(at);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** "27 Nov 2026": a day, for dates that have no time of day (an expiry, a chart's axis). */
export function formatDay(at: Date | string | number | null | undefined): string {
  const d = toDate(at);
  return d ? `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}` : NO_DATE;
}

/** "27 Nov 2026, 21:37 UTC" (with `seconds`, "27 Nov 2026, 21:37:05 UTC" for what changes by the second). */
export function formatDate(at: Date | string | number | null | undefined, options: { seconds?: boolean } = {}): string {
  const d = toDate(at);
  if (!d) return NO_DATE;
  const time = `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}${options.seconds ? `:${two(d.getUTCSeconds())}` : ""}`;
  return `${formatDay(d)}, ${time} UTC`;
}

const UNITS = [
  ["d", 86_400_000],
  ["h", 3_600_000],
  ["min", 60_000],
  ["s", 1_000],
] as const;

/**
 * "7 d 4 h 37 min", "12 min 30 s", "45 s", "0 s": the largest units first, zero parts left out.
 * From an hour up it is to the minute (the seconds of a 7-day estimate say nothing); below, to the
 * second. Negative and non-finite lengths are written as "0 s" rather than as nonsense.
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return "0 s";
  const toSecond = Math.round(ms / 1_000) * 1_000;
  if (toSecond === 0) return "0 s";
  const units = toSecond >= 3_600_000 ? UNITS.slice(0, 3) : UNITS.slice(2);
  const smallest = units[units.length - 1]![1];
  let rest = Math.round(toSecond / smallest) * smallest;
  const parts: string[] = [];
  for (const [unit, size] of units) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n) parts.push(`${n} ${unit}`);
  }
  return parts.join(" ");
}
