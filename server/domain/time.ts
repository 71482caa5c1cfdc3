/**
 * An ISO 8601 date or timestamp as people and scripts write them (`2026-11-01`,
 * `2026-11-01T08:00:00Z`, `2026-11-01T08:00+02:00`); null when the text is not one, names a day
 * that does not exist (`2026-02-30`, which Date would quietly move to March), or lies before 1970.
 */
export function parseIsoTime(text: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?$/.exec(text);
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (year < 1970 || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  const at = new Date(text);
  return Number.isNaN(at.getTime()) ? null : at;
}

/** Whether the text is a date alone (no time of day). */
export const isDateOnly = (text: string) => /^\d{4}-\d{2}-\d{2}$/.test(text);
