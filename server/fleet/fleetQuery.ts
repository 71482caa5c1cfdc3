import { z } from "zod";
import { FLEET_SORT_KEYS, type FleetCursor, type FleetFilter, type FleetSort } from "../store/fleetWindow";

/**
 * The fleet table's query string, checked at the HTTP edge and shared by the API, the fleet page
 * (its URL is the same query string, so a filtered view is a link) and the CSV export.
 */
const SKEW = ["ok", "at-risk", "blocked", "opted-out", "unknown"] as const;
const READINESS = ["pass", "warn", "fail", "unknown"] as const;
/** Labels a cluster onboarded from an ACM hub carries: the hub's name and the cluster's set. */
export const HUB_LABEL = "fleetskew.io/hub";
export const CLUSTER_SET_LABEL = "cluster.open-cluster-management.io/clusterset";

const flag = z.enum(["1", "0", "true", "false"]).transform((v) => v === "1" || v === "true");
const text = (max: number) => z.string().trim().max(max, `must be at most ${max} characters`);
// A Kubernetes label key (optionally prefixed) and value; a selector is `key` or `key=value`.
const LABEL =
  /^([A-Za-z0-9][-A-Za-z0-9_.]{0,252}\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?(=([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?)?$/;

const cursor = z.string().transform((raw, ctx): FleetCursor => {
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

export const encodeCursor = (c: FleetCursor) => Buffer.from(JSON.stringify([c.value, c.name])).toString("base64url");

export const FleetListQuerySchema = z.object({
  q: text(200).optional(),
  platform: text(100).optional(),
  version: z
    .string()
    .regex(/^(\d{1,4}\.\d{1,4}|unknown)$/, "must be a minor version like 4.19, or unknown")
    .optional(),
  skew: z.enum(SKEW).optional(),
  mode: text(40).optional(),
  readiness: z.enum(READINESS).optional(),
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
  sort: z.enum(FLEET_SORT_KEYS).default("skew"),
  dir: z.enum(["asc", "desc"]).default("asc"),
  after: cursor.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});
export type FleetListQuery = z.output<typeof FleetListQuerySchema>;
export type FleetListQueryInput = z.input<typeof FleetListQuerySchema>;

export function filterOf(q: FleetListQuery): FleetFilter {
  const labels = [...(q.label ?? [])];
  if (q.hub) labels.push({ key: HUB_LABEL, value: q.hub });
  if (q.clusterSet) labels.push({ key: CLUSTER_SET_LABEL, value: q.clusterSet });
  return {
    search: q.q,
    platform: q.platform,
    minor: q.version,
    skew: q.skew,
    mode: q.mode,
    readiness: q.readiness,
    blocker: q.blocker,
    labels,
    registryLess: q.registryLess,
    stale: q.stale,
    offline: q.offline,
  };
}

export const sortOf = (q: FleetListQuery): FleetSort => ({ key: q.sort, desc: q.dir === "desc" });
