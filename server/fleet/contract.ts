/**
 * The fleet and cluster read endpoints of /api/v1 and what they send, defined once: route handlers
 * bind to these endpoints, the browser calls them, the OpenAPI document is made from them. What they
 * take is in requestContract.ts. Imports zod and pure modules only, so the browser may import it.
 */
import { z } from "zod";
import { ClusterSnapshotSchema } from "../domain/snapshot";
import { endpoint, isoDate } from "../http/endpoint";
import { ClusterSummaryAnswer } from "../clusters/contract";
import {
  CHECK_STATUSES,
  CLUSTER_TIMELINE_DAYS,
  FLEET_TIMELINE_DAYS,
  FleetListQuerySchema,
  ReadinessQuery,
  SaveSkewLimitsSchema,
  SKEW_STATUSES,
  timeWindowQuery,
} from "./requestContract";
// What the fleet view's filters are, for the browser's own pickers (components import contracts only).
export { CHECK_STATUSES, FleetListQuerySchema, SKEW_STATUSES, type FleetListQueryInput } from "./requestContract";

export const SkewStatus = z.enum(SKEW_STATUSES).meta({ id: "SkewStatus" });
export type SkewStatus = z.output<typeof SkewStatus>;
export const CheckStatus = z.enum(CHECK_STATUSES).meta({ id: "CheckStatus" });
export type CheckStatus = z.output<typeof CheckStatus>;
export const ContactStatus = z.enum(["unknown", "ok", "unreachable", "unauthorized", "stale"]);
export type ContactStatus = z.output<typeof ContactStatus>;

/** One row of the fleet table: a registered cluster (never its credentials) with its newest summary. */
export const FleetClusterAnswer = ClusterSummaryAnswer.extend({
  apiUrl: z
    .string()
    .nullable()
    .meta({ description: "Admins only (for a hub's cluster it is the hub's proxy URL); null for every other role" }),
  offline: z.boolean().meta({ description: "Imported from object dumps, or a hub cluster not contacted: never swept" }),
  version: z.string().nullable(),
  skewStatus: SkewStatus,
  skewSummary: z.string().nullable(),
  enforcementMode: z.string().nullable(),
  oldestBootImage: z.string().nullable(),
  readinessTarget: z.string().nullable(),
  readinessStatus: CheckStatus,
  readinessBlocker: z.string().nullable(),
  lastSeenAt: isoDate().nullable().meta({ description: "When the collector last saw the cluster's state" }),
  stale: z.boolean().meta({ description: "Not offline, and its last sweep failed or is too long ago" }),
  registryLess: z.boolean().meta({ description: "Installed without a registry (its snapshot has an InternalReleaseImage)" }),
  hubState: z
    .string()
    .nullable()
    .meta({ description: "From an ACM hub: available, lease-expired or removed; null for a cluster registered directly" }),
}).meta({ id: "FleetCluster" });
export type FleetCluster = z.output<typeof FleetClusterAnswer>;

/** GET /api/v1/clusters: one window of the fleet. */
export const ClusterListAnswer = z.strictObject({
  clusters: z.array(FleetClusterAnswer),
  total: z.number().int().meta({ description: "How many clusters match the filters (all windows)" }),
  next: z.string().nullable().meta({ description: "The cursor of the next window (?after=), or null after the last" }),
});
export type ClusterList = z.output<typeof ClusterListAnswer>;
export type FleetPage = ClusterList;

const Count = z.record(z.string(), z.number().int());
const Blocker = z.strictObject({ title: z.string(), clusters: z.number().int() });

/** GET /api/v1/fleet/summary */
export const FleetSummaryAnswer = z.strictObject({
  clusters: z.number().int(),
  bySkew: Count,
  byReadiness: Count,
  byPlatform: Count,
  byMode: Count,
  versions: z.array(z.strictObject({ minor: z.string(), count: z.number().int() })),
  stale: z.number().int(),
  offline: z.number().int(),
  registryLess: z.number().int(),
  mostCommonBlocker: Blocker.nullable(),
  blockers: z.array(Blocker).meta({ description: "The most common readiness blockers, most clusters first (at most 20)" }),
});
export type FleetSummary = z.output<typeof FleetSummaryAnswer>;

export const ClusterSnapshotAnswer = ClusterSnapshotSchema.meta({
  id: "ClusterSnapshot",
  description:
    "The cluster as Fleetskew understood it at its last sweep, normalized from the objects read; parts that snapshots stored by earlier versions lack are optional",
});

const EnforcementMode = z.enum(["Automatic", "Manual", "None"]);
const Source = z.enum(["cluster", "predicted"]);

/** A cluster's boot-image skew at one release, the MCO's way (docs/openshift.md §15–§17). */
export const SkewAssessment = z.strictObject({
  release: z.string(),
  mcoRelease: z.enum(["4.22", "4.23"]).optional().meta({
    description:
      "The MCO release line whose rules the assessment follows (docs/openshift.md §25); absent in records stored before it was kept",
  }),
  limits: z.strictObject({ ocpVersion: z.string(), rhelVersion: z.string() }).nullable(),
  enforcement: z.strictObject({
    mode: EnforcementMode,
    value: z.strictObject({ ocpVersion: z.string().nullable(), rhcosVersion: z.string().nullable() }).nullable(),
    source: Source,
    basis: z.string(),
    installVersionFallback: z.boolean(),
    degradedController: z.string().nullable().optional(),
    assumption: z.string().nullable().optional(),
    undetermined: z.string().nullable().optional(),
    skewCheckSkipped: z.string().nullable().optional().meta({
      description:
        "Predicted only: the boot image controller crashes, so it never finishes a pass and the MCO skips the skew check (docs/openshift.md §15.4)",
    }),
  }),
  verdict: z
    .discriminatedUnion("outcome", [
      z.strictObject({ outcome: z.literal("within-limit"), compared: z.enum(["ocpVersion", "rhcosVersion"]), value: z.string() }),
      z.strictObject({
        outcome: z.literal("below-limit"),
        compared: z.enum(["ocpVersion", "rhcosVersion"]),
        value: z.string(),
        rhel: z.string().optional(),
        message: z.string(),
      }),
      z.strictObject({ outcome: z.literal("unparseable"), value: z.string(), warning: z.string() }),
      z.strictObject({ outcome: z.literal("no-value"), warning: z.string() }),
    ])
    .nullable(),
  block: z.strictObject({ reason: z.string(), message: z.string(), source: Source }).nullable(),
  notes: z.array(z.string()),
});

const ClusterSkew = z.strictObject({
  status: SkewStatus,
  summary: z.string(),
  assessment: SkewAssessment.nullable(),
  oldest: z
    .strictObject({
      machineSet: z.string(),
      ocpVersion: z.string().nullable(),
      rhcosBuild: z.string().nullable(),
      lagMinors: z.number().int().nullable(),
    })
    .nullable(),
  effectiveMode: EnforcementMode.nullable(),
});

const ManagedWhatIf = z.strictObject({
  supported: z.boolean(),
  wouldUpdate: z.array(z.string()),
  wouldSkip: z.array(z.strictObject({ machineSet: z.string(), reason: z.string() })),
  excluded: z.array(z.strictObject({ machineSet: z.string(), reason: z.string() })),
  result: z.string(),
});

export const ReadinessCheckAnswer = z
  .strictObject({
    id: z.string(),
    title: z.string(),
    status: CheckStatus,
    detail: z.string(),
    evidence: z.array(
      z.strictObject({ kind: z.string(), name: z.string(), namespace: z.string().optional(), field: z.string().optional() }),
    ),
    remediation: z.string().nullable(),
    causedBy: z.array(z.string()).optional(),
  })
  .meta({ id: "ReadinessCheck" });
export type ReadinessCheck = z.output<typeof ReadinessCheckAnswer>;

export const UpdateKind = z.enum(["z-stream", "minor", "multi-minor", "same", "downgrade", "invalid"]);
export type UpdateKind = z.output<typeof UpdateKind>;

export const ReadinessAnswerSchema = z
  .strictObject({
    target: z.string(),
    current: z.string().nullable(),
    updateKind: UpdateKind,
    status: CheckStatus,
    checks: z.array(ReadinessCheckAnswer),
    blockers: z.array(z.string()).meta({ description: "Ids of failing checks" }),
  })
  .meta({ id: "Readiness" });
export type Readiness = z.output<typeof ReadinessAnswerSchema>;

const ServedRelease = z.strictObject({
  name: z.string(),
  version: z.string().nullable(),
  image: z.string().nullable(),
  digest: z.string().nullable(),
  state: z.enum(["available", "degraded", "unavailable"]),
  reason: z.string().nullable(),
  message: z.string().nullable(),
});

const RegistryLessStateAnswer = z.strictObject({
  releases: z.array(ServedRelease),
  problems: z.array(z.strictObject({ source: z.string(), reason: z.string().nullable(), message: z.string().nullable() })),
  nodes: z.array(
    z.strictObject({
      node: z.string(),
      state: z.enum(["available", "degraded", "unknown"]),
      reason: z.string().nullable(),
      message: z.string().nullable(),
      releases: z.array(ServedRelease),
    }),
  ),
});
export type RegistryLessState = z.output<typeof RegistryLessStateAnswer>;

/** GET /api/v1/clusters/{name} */
export const ClusterDetailAnswer = z.strictObject({
  cluster: FleetClusterAnswer,
  snapshot: ClusterSnapshotAnswer.nullable().meta({ description: "null until the cluster has been read once" }),
  skew: ClusterSkew.nullable(),
  lags: z.array(z.strictObject({ machineSet: z.string(), lagMinors: z.number().int().nullable() })),
  managedWhatIf: ManagedWhatIf.nullable(),
  readiness: ReadinessAnswerSchema.nullable().meta({ description: "For the cluster's default target; null when it has none" }),
  registryLess: RegistryLessStateAnswer.nullable(),
  observedAt: isoDate().nullable(),
});
export type ClusterDetail = z.output<typeof ClusterDetailAnswer>;

/** GET /api/v1/clusters/{name}/readiness */
export const ReadinessAnswer = z.strictObject({ readiness: ReadinessAnswerSchema });
export type ReadinessAnswer = z.output<typeof ReadinessAnswer>;

/** GET /api/v1/fleet/readiness */
export const FleetReadinessAnswer = z.strictObject({
  counts: z.strictObject({ pass: z.number().int(), warn: z.number().int(), fail: z.number().int(), unknown: z.number().int() }),
  mostCommonBlocker: z.strictObject({ id: z.string(), title: z.string(), clusters: z.number().int() }).nullable(),
  /** Every check that blocks some cluster by a cause of its own, most clusters first: a cluster counts once under each of its causes. */
  blockers: z.array(z.strictObject({ id: z.string(), title: z.string(), clusters: z.number().int() })),
});
export type FleetReadiness = z.output<typeof FleetReadinessAnswer>;

const Point = { at: isoDate(), inferred: z.boolean().meta({ description: "Backfilled from earlier history, not observed" }) };
export const TimelineEventKind = z.enum(["upgrade", "enforcement", "upgradeable", "acknowledgement", "bundle"]);
export type TimelineEventKind = z.output<typeof TimelineEventKind>;

/** GET /api/v1/clusters/{name}/timeline */
export const TimelineAnswer = z.strictObject({
  cluster: z.string(),
  from: isoDate(),
  to: isoDate(),
  version: z.array(z.strictObject({ ...Point, version: z.string().nullable() })),
  oldestBootImage: z.array(z.strictObject({ ...Point, ocpVersion: z.string().nullable(), rhcosBuild: z.string().nullable() })),
  skew: z.array(z.strictObject({ ...Point, status: z.string() })),
  limit: z
    .strictObject({ ocpVersion: z.string(), fromRelease: z.string() })
    .nullable()
    .meta({ description: "The OCP boot-image limit and the first release that enforces it" }),
  events: z.array(z.strictObject({ ...Point, kind: TimelineEventKind, title: z.string() })),
});
export type Timeline = z.output<typeof TimelineAnswer>;

/** GET /api/v1/fleet/timeline */
export const FleetTimelineAnswer = z.strictObject({
  from: isoDate(),
  to: isoDate(),
  days: z.array(
    z.strictObject({
      day: z.string().meta({ description: "YYYY-MM-DD (UTC)" }),
      counts: Count.meta({ description: "Clusters per skew status at the end of the day" }),
      inferred: z.number().int().meta({ description: "How many of the day's clusters are counted from backfilled history" }),
    }),
  ),
});
export type FleetTimeline = z.output<typeof FleetTimelineAnswer>;

export const SkewLimitEntryAnswer = z
  .strictObject({ fromRelease: z.string(), ocpVersion: z.string(), rhelVersion: z.string() })
  .meta({ id: "SkewLimit" });
export type SkewLimitEntry = z.output<typeof SkewLimitEntryAnswer>;

/** GET and PUT /api/v1/settings/skew-limits */
export const SkewLimitTableAnswer = z.strictObject({
  known: z.array(SkewLimitEntryAnswer).meta({ description: "The limits compiled into the MCO releases Fleetskew knows" }),
  added: z.array(SkewLimitEntryAnswer).meta({ description: "Those an admin added for later releases" }),
  effective: z.array(SkewLimitEntryAnswer).meta({ description: "Both merged: the table in force" }),
});
export type SkewLimitTable = z.output<typeof SkewLimitTableAnswer>;

const NameParams = z.object({ name: z.string().min(1) });

export const fleetEndpoints = {
  list: endpoint({
    method: "GET",
    path: "/api/v1/clusters",
    summary: "One window of the fleet: filtered, sorted and paged",
    description:
      "Read from the store; no cluster is contacted. Pass `next` as `?after=` for the following window (at most 1000 clusters each). The same window asked for by many people at once is read once; an unchanged window answers 304 to If-None-Match.",
    access: "any",
    query: FleetListQuerySchema,
    errors: [304],
    answer: ClusterListAnswer,
  }),
  detail: endpoint({
    method: "GET",
    path: "/api/v1/clusters/{name}",
    summary: "A cluster's newest snapshot with its skew, the managed-boot-images what-if and readiness for the default target",
    access: "any",
    params: NameParams,
    answer: ClusterDetailAnswer,
  }),
  readiness: endpoint({
    method: "GET",
    path: "/api/v1/clusters/{name}/readiness",
    summary: "A cluster's readiness checklist for ?target= (the next minor when omitted)",
    description: "409 when the cluster has not been read yet, or its version is not known and no target is given.",
    access: "any",
    params: NameParams,
    query: ReadinessQuery,
    errors: [409],
    answer: ReadinessAnswer,
  }),
  timeline: endpoint({
    method: "GET",
    path: "/api/v1/clusters/{name}/timeline",
    summary: "A cluster's version, oldest boot image, skew status and events over time",
    description: "?from&to are ISO dates; the default is the last four years.",
    access: "any",
    params: NameParams,
    query: timeWindowQuery(CLUSTER_TIMELINE_DAYS),
    answer: TimelineAnswer,
  }),
  csv: endpoint({
    method: "GET",
    path: "/api/v1/fleet/clusters.csv",
    summary: "Every cluster the fleet query matches (paging ignored), as CSV",
    access: "any",
    query: FleetListQuerySchema,
    produces: "csv",
    work: { kind: "export" },
    answer: z.string().meta({
      description:
        "A header line, then one line per cluster: name, displayName, version, platform, skewStatus, skewSummary, enforcementMode, oldestBootImage, readinessTarget, readinessStatus, readinessBlocker, lastSeenAt, stale, offline, labels",
    }),
  }),
  readinessRollUp: endpoint({
    method: "GET",
    path: "/api/v1/fleet/readiness",
    summary: "Readiness rolled up over the fleet for ?target= (each cluster's next minor when omitted)",
    access: "any",
    query: ReadinessQuery,
    answer: FleetReadinessAnswer,
  }),
  summary: endpoint({
    method: "GET",
    path: "/api/v1/fleet/summary",
    summary: "Counts of the whole fleet",
    description: "From aggregates, shared by everyone asking at once; 304 to If-None-Match when nothing changed.",
    access: "any",
    errors: [304],
    answer: FleetSummaryAnswer,
  }),
  fleetTimeline: endpoint({
    method: "GET",
    path: "/api/v1/fleet/timeline",
    summary: "Clusters per skew status over time",
    description:
      "?from&to are ISO dates; the default is the last year. At most 400 points: a long window is counted in steps of several days.",
    access: "any",
    query: timeWindowQuery(FLEET_TIMELINE_DAYS),
    answer: FleetTimelineAnswer,
  }),
  skewLimits: endpoint({
    method: "GET",
    path: "/api/v1/settings/skew-limits",
    summary: "The boot-image skew limits per release: the MCO's own, and those an admin added for later releases",
    access: "any",
    answer: SkewLimitTableAnswer,
  }),
  saveSkewLimits: endpoint({
    method: "PUT",
    path: "/api/v1/settings/skew-limits",
    summary: "Replace the skew limits an admin added",
    description: "Only releases after the newest minor the MCO's own table covers may be added; each release once.",
    access: ["admin"],
    personOnly: "change settings",
    body: SaveSkewLimitsSchema,
    answer: SkewLimitTableAnswer,
  }),
};
