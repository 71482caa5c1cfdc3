import { z } from "zod";
import { parseOcpVersion } from "../domain/versions";

/**
 * The query strings of the fleet's read routes, checked at the HTTP edge: the features below take
 * the parsed values and never answer a 400 themselves.
 */

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

export {
  CLUSTER_TIMELINE_DAYS,
  FLEET_TIMELINE_DAYS,
  ReadinessQuery,
  timeWindow,
  timeWindowQuery,
  type TimeWindow,
} from "./contract";
