/**
 * What the fleet and cluster read endpoints of /api/v1 take: the fleet query (filters, sort and the
 * cursor of the next window), a readiness target, a timeline's window and the skew limits an admin
 * saves. The endpoints that take them are in contract.ts. Imports zod and pure modules only, so the
 * browser may import it.
 */
import { z } from "zod";
import { FLEET_SORT_KEYS, type FleetSortKey } from "../domain/fleetSort";
import { LABEL_SELECTOR } from "../domain/scope";
import { parseIsoTime } from "../domain/time";
import { TARGET_VERSION } from "../domain/versions";

/** The statuses the fleet filters by and the answers carry. */
export const SKEW_STATUSES = ["ok", "at-risk", "blocked", "opted-out", "unknown"] as const;
export const CHECK_STATUSES = ["pass", "warn", "fail", "unknown"] as const;

const flag = z.enum(["1", "0", "true", "false"]).transform((v) => v === "1" || v === "true");
const text = (max: number) => z.string().trim().max(max, `must be at most ${max} characters`);
// A Kubernetes label key (optionally prefixed) and value; a selector is `key` or `key=value`.
const LABEL = LABEL_SELECTOR;

/** Where the next window of the fleet starts: the sort column's value and the name of the last cluster. */
const cursor = z.string().transform((raw, ctx): { value: string | null; name: string } => {
  try {
    const [value, name] = JSON.parse(Buffer.from(raw, "base64url").toString("utf8")) as unknown[];
    if ((typeof value === "string" || value === null) && typeof name === "string" && name.length <= 253 && (value?.length ?? 0) <= 100)
      return { value, name };
  } catch {
    // reported below
  }
  ctx.addIssue({ code: "custom", message: "is not a cursor this console gave out; start from the first page" });
  return z.NEVER;
});

/**
 * What a cursor's value may be for each sort: the text Postgres gives for the sort's expression
 * (server/store/fleetWindow.ts SORTS), which is cast back to that type. Anything else would fail the
 * cast in the database; it is refused here instead, as the cursor no page of that sort gave out.
 */
const INT = /^-?\d{1,9}$/;
const INT_ARRAY = /^\{-?\d{1,9}(,-?\d{1,9}){0,15}\}$/;
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?$/;
function isTimestamp(value: string): boolean {
  if (value === "-infinity" || value === "infinity") return true;
  const m = TIMESTAMP.exec(value);
  if (!m) return false;
  const [y, mo, d, h, mi, sec] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const at = new Date(Date.UTC(y, mo - 1, d, h, mi, sec));
  return y >= 1 && at.getUTCFullYear() === y && at.getUTCMonth() === mo - 1 && at.getUTCDate() === d && h < 24 && mi < 60 && sec < 60;
}
const CURSOR_VALUE: Record<FleetSortKey, (value: string) => boolean> = {
  name: () => true,
  version: (v) => INT_ARRAY.test(v),
  skew: (v) => INT.test(v),
  oldest: (v) => INT_ARRAY.test(v),
  readiness: (v) => INT.test(v),
  lastSeen: isTimestamp,
};

/**
 * The fleet table's query string, checked at the HTTP edge and shared by the API, the fleet page
 * (its URL is the same query string, so a filtered view is a link) and the CSV export.
 */
export const FleetListQuerySchema = z
  .object({
    q: text(200).optional(),
    /** Exact cluster names, separated by commas: "these clusters", as a link from a cluster's page or a list pasted by hand. */
    name: z
      .string()
      .max(64_000)
      .transform((raw, ctx) => {
        const names = [
          ...new Set(
            raw
              .split(",")
              .map((n) => n.trim())
              .filter(Boolean),
          ),
        ];
        if (names.length > 1000) ctx.addIssue({ code: "custom", message: "at most 1000 names" });
        return names;
      })
      .optional(),
    platform: text(100).optional(),
    version: z
      .string()
      .regex(/^(\d{1,4}\.\d{1,4}|unknown)$/, "must be a minor version like 4.19, or unknown")
      .optional(),
    skew: z.enum(SKEW_STATUSES).optional(),
    mode: text(40).optional(),
    readiness: z.enum(CHECK_STATUSES).optional(),
    blocker: text(500).optional(),
    /** `key` or `key=value`, several separated by commas (label values cannot hold a comma). */
    label: z
      .string()
      .max(2000)
      .transform((raw, ctx) => {
        const parts = raw
          .split(",")
          .map((p) => p.trim())
          .filter(Boolean);
        if (parts.length > 10) ctx.addIssue({ code: "custom", message: "at most 10 label selectors" });
        const bad = parts.find((p) => !LABEL.test(p));
        if (bad) ctx.addIssue({ code: "custom", message: `"${bad.slice(0, 80)}" is not a label key or key=value` });
        return parts.map((p) => {
          const at = p.indexOf("=");
          return at < 0 ? { key: p } : { key: p.slice(0, at), value: p.slice(at + 1) };
        });
      })
      .optional(),
    hub: text(253).optional(),
    clusterSet: text(63).optional(),
    registryLess: flag.optional(),
    stale: flag.optional(),
    offline: flag.optional(),
    /** Clusters of a rollout (its number), optionally only those in one state there. */
    rollout: z.coerce.number().int().min(1).max(999_999_999).optional(),
    rolloutState: z.enum(["pending", "waiting-window", "running", "succeeded", "failed", "skipped", "excluded"]).optional(),
    sort: z.enum(FLEET_SORT_KEYS).default("skew"),
    dir: z.enum(["asc", "desc"]).default("asc"),
    after: cursor.optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
  })
  .superRefine((q, ctx) => {
    if (q.after?.value != null && !CURSOR_VALUE[q.sort](q.after.value))
      ctx.addIssue({
        code: "custom",
        path: ["after"],
        message: "is not a cursor this console gave out for this sort; start from the first page",
      });
  });
export type FleetListQuery = z.output<typeof FleetListQuerySchema>;
export type FleetListQueryInput = z.input<typeof FleetListQuerySchema>;

/** ?target=4.22 or 4.22.3; absent means each cluster's default target. */
export const ReadinessQuery = z.object({
  target: z
    .string()
    .trim()
    .refine((t) => TARGET_VERSION.test(t), {
      error: (issue) => `must be a version like 4.22 or 4.22.3, not "${String(issue.input).slice(0, 40)}"`,
    })
    .optional(),
});

export type TimeWindow = { from: Date; to: Date };

const DAY = 86_400_000;
const MAX_SPAN = 20 * 365 * DAY;
const isoTime = z.string().transform((text, ctx) => {
  const at = parseIsoTime(text);
  if (!at) {
    ctx.addIssue({ code: "custom", message: "must be an ISO 8601 date, e.g. 2026-01-01 or 2026-01-01T00:00:00Z" });
    return z.NEVER;
  }
  return at;
});

/** The window [from, to) a timeline covers: `to` defaults to now, `from` to `defaultDays` before `to`. */
export function timeWindow(defaultDays: number, from?: Date, to?: Date, now: Date = new Date()): TimeWindow {
  const end = to ?? now;
  return { from: from ?? new Date(end.getTime() - defaultDays * DAY), to: end };
}

/** ?from&to as ISO dates or times; `defaultDays` back from `to` when from is absent; at most 20 years. */
export const timeWindowQuery = (defaultDays: number) =>
  z
    .object({ from: isoTime.optional(), to: isoTime.optional() })
    .transform(({ from, to }) => timeWindow(defaultDays, from, to))
    .superRefine(({ from, to }, ctx) => {
      if (from >= to) ctx.addIssue({ code: "custom", path: ["from"], message: "must be before to" });
      else if (to.getTime() - from.getTime() > MAX_SPAN)
        ctx.addIssue({ code: "custom", path: ["from"], message: "the window may span at most 20 years" });
    });

export const CLUSTER_TIMELINE_DAYS = 365 * 4;
export const FLEET_TIMELINE_DAYS = 365;

const release = (example: string) =>
  z
    .string()
    .trim()
    .regex(/^\d+\.\d+\.\d+$/, `must be ${example}`);

export const SkewLimitEntrySchema = z.object({
  fromRelease: release("a release like 4.24.0"),
  ocpVersion: release("an OCP version like 4.16.0"),
  rhelVersion: z
    .string()
    .trim()
    .regex(/^\d+\.\d+$/, "must be a RHEL version like 9.4"),
});
export const SkewLimitTableSchema = z.array(SkewLimitEntrySchema).max(50, "at most 50 entries");
export const SaveSkewLimitsSchema = z.object({ entries: SkewLimitTableSchema });
/** PUT /api/v1/settings/skew-limits */
export type SaveSkewLimitsRequest = z.input<typeof SaveSkewLimitsSchema>;
