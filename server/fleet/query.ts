import { z } from "zod";
import { parseIsoTime } from "../domain/time";
import { parseOcpVersion, TARGET_VERSION } from "../domain/versions";

/**
 * The query strings of the fleet's read routes, checked at the HTTP edge: the features below take
 * the parsed values and never answer a 400 themselves.
 */

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

/** ?target=4.22.3: a release (x.y.z); absent means the next release that enforces the skew limit. */
export const ReleaseTargetQuery = z.object({
  target: z
    .string()
    .trim()
    .refine((t) => parseOcpVersion(t) !== null, {
      error: (issue) => `must be a release like 4.22.3, not "${String(issue.input).slice(0, 40)}"`,
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
