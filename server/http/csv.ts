/** RFC 4180 CSV: every field quoted when it needs to be, CRLF line ends, a header row first. */
const field = (value: unknown): string => {
  const text = value === null || value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value);
  // A leading =, +, - or @ would be run as a formula by spreadsheet programs.
  const safe = /^[=+\-@]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

export function toCsv<T extends Record<string, unknown>>(columns: (keyof T & string)[], rows: T[]): string {
  return [columns.join(","), ...rows.map((r) => columns.map((c) => field(r[c])).join(","))].join("\r\n") + "\r\n";
}
