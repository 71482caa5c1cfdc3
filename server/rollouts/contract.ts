/**
 * What the rollout endpoints of /api/v1 take and send. Imports zod and pure modules only, so the
 * browser may import it.
 */
import { z } from "zod";
import { RolloutRequestSchema } from "../domain/rollouts/request";
import { CLUSTER_STATES } from "../domain/rollouts/progress";
import { WAVE_STATES } from "../domain/rollouts/outcome";
import { endpoint, isoDate } from "../http/endpoint";

export { RolloutRequestSchema };

const STATUSES = ["awaiting-approval", "running", "paused", "completed", "aborted"] as const;
const KINDS = ["upgrade", "bundle", "acknowledgement"] as const;
const ROLLOUT_CLUSTER_STATES = [...CLUSTER_STATES, "excluded"] as const;

const PlannedWave = z
  .strictObject({
    name: z.string(),
    kind: z.enum(["canary", "batch", "group"]),
    group: z.string().nullable(),
    mandatory: z.boolean().meta({ description: "One failure in this wave stops the rollout (canaries, mandatory groups)" }),
    clusters: z.array(z.string()),
  })
  .meta({ id: "PlannedWave" });

const Excluded = z.strictObject({ cluster: z.string(), reason: z.string() }).meta({ id: "ExcludedCluster" });

export const RolloutPlanAnswer = z.strictObject({
  waves: z.array(PlannedWave),
  excluded: z.array(Excluded),
  selected: z.number().int().meta({ description: "Clusters selected within the planner's technician scope" }),
  outsideScope: z.number().int().meta({
    description:
      "Clusters the selection named or matched that are outside the planner's technician scope: left out, counted and never named",
  }),
  failureBudget: z
    .number()
    .int()
    .meta({ description: "How many clusters may fail before the rollout stops (maxFailures over the included clusters)" }),
  estimate: z.strictObject({
    totalMs: z.number(),
    finishesAt: isoDate(),
    waves: z.array(z.strictObject({ name: z.string(), startsAt: isoDate(), endsAt: isoDate(), waitsForWindow: z.boolean() })),
  }),
});
export type RolloutPlanAnswer = z.output<typeof RolloutPlanAnswer>;

export const RolloutSummary = z
  .strictObject({
    id: z.uuid(),
    number: z.number().int(),
    kind: z.enum(KINDS),
    status: z.enum(STATUSES),
    statusReason: z.string().nullable(),
    write: z.string().meta({ description: "What the rollout writes, in a line" }),
    createdBy: z.string(),
    createdAt: isoDate(),
    approvedBy: z.string().nullable(),
    approvedAt: isoDate().nullable(),
    finishedAt: isoDate().nullable(),
    estimate: z.string().nullable().meta({ description: "The planned duration, as the console writes durations (7 d 4 h 37 min)" }),
  })
  .meta({ id: "RolloutSummary" });
export type RolloutSummary = z.output<typeof RolloutSummary>;

const Counts = z.record(z.string(), z.number().int());

export const WaveView = z.strictObject({
  index: z.number().int(),
  name: z.string(),
  kind: z.string(),
  mandatory: z.boolean(),
  releasedAt: isoDate().nullable(),
  releasedBy: z.string().nullable(),
  total: z.number().int(),
  counts: Counts,
  state: z
    .enum(WAVE_STATES)
    .meta({ description: "succeeded: every cluster succeeded; skipped: every cluster was skipped; partly-skipped: the rest succeeded" }),
});
export type WaveView = z.output<typeof WaveView>;

const WindowView = z.strictObject({
  schedule: z.string().meta({ description: "The cron schedule that opens the window" }),
  duration: z.string().meta({ description: "How long it stays open, as Kubernetes writes durations" }),
  timeZone: z.string(),
});

const Setting = z
  .strictObject({
    field: z.string().meta({ description: "The request field it shows (`strategy.minSuccessTime`, `windows.byValue`)" }),
    label: z.string(),
    value: z.string().meta({ description: "The value in words" }),
  })
  .meta({ id: "RolloutSetting" });

/** What the reader may do with this rollout, from their grants over its clusters: the page shows only buttons that will work. */
const RolloutYours = z
  .strictObject({
    outsideScope: z
      .number()
      .int()
      .meta({ description: "The rollout's clusters (excluded ones not counted) outside the reader's read scope" }),
    mayApprove: z.boolean().meta({ description: "An approver over every cluster, and not its planner" }),
    mayRelease: z.boolean().meta({ description: "An approver over every cluster: release a wave, resume" }),
    mayPause: z.boolean().meta({ description: "A technician or approver over at least one of its clusters" }),
    mayAbort: z.boolean().meta({ description: "An approver over at least one of its clusters" }),
  })
  .meta({ id: "RolloutYours" });

export const RolloutView = RolloutSummary.extend({
  yours: RolloutYours,
  digest: z.string().meta({
    description:
      "The digest of the plan as it is now (its request, waves and clusters), also sent as the ETag: approve sends it back (If-Match), and a plan changed since is refused with 409",
  }),
  approvedDigest: z.string().nullable().meta({ description: "The digest that was approved; null until then" }),
  target: z.string().nullable(),
  bundle: z.string().nullable(),
  release: z
    .strictObject({ version: z.string(), image: z.string() })
    .nullable()
    .meta({ description: "A bundle rollout's release (as its manifest names it); null for other kinds or a manifest no longer stored" }),
  acceptRisks: z.array(z.string()).meta({ description: "Upgrade rollouts: the conditional-update risks accepted" }),
  startUpgrade: z.boolean().nullable().meta({ description: "Bundle rollouts: whether each cluster's upgrade is started once pinned" }),
  unpinAfter: z.boolean().nullable().meta({ description: "Bundle rollouts: whether the images are unpinned after the upgrade" }),
  acknowledgement: z
    .strictObject({ mode: z.string(), ocpVersion: z.string().nullable(), rhcosVersion: z.string().nullable(), evidence: z.string() })
    .nullable(),
  selection: z.strictObject({ query: z.string().nullable(), clusters: z.number().int().nullable() }).meta({
    description: "How the clusters were chosen: the fleet view's query, or the number named (the clusters are at /clusters)",
  }),
  windows: z
    .strictObject({
      default: WindowView.nullable(),
      label: z.string().nullable(),
      byValue: z.array(z.strictObject({ value: z.string(), window: WindowView })),
    })
    .nullable()
    .meta({ description: "Maintenance windows; null: writes start at any time" }),
  windowsFrozen: z
    .boolean()
    .meta({ description: "Whether each cluster's window was frozen from its labels at approval (labels changed since do not move it)" }),
  settings: z.array(Setting).meta({ description: "Every setting of the plan in words, as the approver reads it" }),
  strategy: z.strictObject({
    canaries: z.union([z.number().int(), z.array(z.string())]),
    maxConcurrency: z.string().nullable(),
    groupBy: z.string().nullable(),
    minSuccessTime: z.string(),
    progressDeadline: z.string(),
    maxFailures: z.string(),
    mandatoryGroups: z.array(z.string()),
    onFailure: z.enum(["pause", "continue"]),
    releaseEachWave: z.boolean(),
  }),
  waves: z.array(WaveView),
  counts: Counts.meta({ description: "Clusters per state, every state named (0 included), excluded ones included" }),
  included: z.number().int(),
  excluded: z.number().int(),
  failureBudget: z.number().int().meta({ description: "How many clusters may fail before the rollout pauses" }),
  failed: z.number().int(),
  awaitingRelease: z
    .number()
    .int()
    .nullable()
    .meta({ description: "The index of the wave that waits for an approver to release it (plans with releaseEachWave), else null" }),
}).meta({ id: "Rollout" });
export type RolloutView = z.output<typeof RolloutView>;

const RolloutCluster = z
  .strictObject({
    clusterName: z.string(),
    wave: z.number().int().meta({ description: "-1 for a cluster excluded by its checks" }),
    state: z.enum(ROLLOUT_CLUSTER_STATES),
    reason: z.string().nullable(),
    includedBy: z.string().nullable(),
    includedWhy: z.string().nullable(),
    windowOpensAt: isoDate().nullable(),
    startedAt: isoDate().nullable(),
    writtenAt: isoDate().nullable(),
    finishedAt: isoDate().nullable(),
  })
  .meta({ id: "RolloutCluster" });

export const RolloutClusterPage = z.strictObject({
  clusters: z.array(RolloutCluster),
  next: z.string().nullable().meta({ description: "Pass as `after` for the next page; null on the last" }),
});
export type RolloutClusterPage = z.output<typeof RolloutClusterPage>;

const RolloutParams = z.object({ id: z.string().regex(/^(\d{1,9}|[0-9a-f-]{36})$/, "No such rollout") });
const Comment = z.strictObject({ comment: z.string().trim().max(2000, "the comment may be at most 2000 characters").default("") });
const Approval = z.strictObject({
  comment: z.string().trim().max(2000, "the comment may be at most 2000 characters").default(""),
  digest: z
    .string()
    .regex(/^[0-9a-f]{64}$/, "The digest must be the plan's digest as the rollout gives it (64 hex digits)")
    .optional()
    .meta({ description: "The digest of the plan reviewed, when If-Match is not sent" }),
});

const InFlight = z.number().int().meta({
  description:
    "Cluster writes that were on the wire when this committed: they complete and are followed to their end; no other write is sent after this answer",
});

/** What pause and abort answer: the rollout, and the writes they could no longer stop. */
export const RolloutBrakeAnswer = RolloutView.extend({ inFlight: InFlight }).meta({ id: "RolloutBrakeAnswer" });
export type RolloutBrakeAnswer = z.output<typeof RolloutBrakeAnswer>;

const action = <A extends z.ZodType = typeof RolloutView>(
  verb: "pause" | "resume" | "abort",
  summary: string,
  access: readonly ("technician" | "approver")[],
  description: string,
  answer: A = RolloutView as unknown as A,
  personOnly?: string,
) =>
  endpoint({
    method: "POST",
    path: `/api/v1/rollouts/{id}/${verb}`,
    summary,
    description,
    access,
    personOnly,
    params: RolloutParams,
    body: Comment,
    errors: [409],
    answer,
  });

const ClusterName = z.string().trim().min(1).max(253);
const DECISION_STATES = ["pending", "waiting-window", "running", "failed", "excluded"] as const;

/**
 * Skip, retry or include clusters of a rollout. The console sends the names the person saw with the
 * state they saw them in, so a cluster that moved on since (a running one that failed, a failed one
 * retried) is left alone and named in the answer rather than swept up with the rest.
 */
export const ClusterDecision = z
  .strictObject({
    action: z.enum(["skip", "retry", "include"]),
    clusters: z.array(ClusterName).min(1, "Name at least one cluster").max(1000, "Name at most 1000 clusters at once").optional(),
    inState: z.enum(DECISION_STATES).optional().meta({
      description:
        "With clusters: change them only while still in this state (the state they were seen in). Alone: every cluster in this state when the decision lands.",
    }),
    comment: z.string().trim().min(3, "say why, in at least 3 characters").max(2000, "may be at most 2000 characters"),
  })
  .refine((d) => d.clusters || d.inState, {
    message: "Name the clusters (clusters), the state whose clusters to change (inState), or both",
  })
  .meta({ id: "RolloutClusterDecision" });
export type ClusterDecision = z.output<typeof ClusterDecision>;

export const ClusterRollout = RolloutSummary.extend({
  clusterState: z.enum(ROLLOUT_CLUSTER_STATES),
  clusterReason: z.string().nullable(),
  clusterFinishedAt: isoDate().nullable(),
}).meta({ id: "ClusterRollout" });
export type ClusterRollout = z.output<typeof ClusterRollout>;

export const rolloutEndpoints = {
  ofCluster: endpoint({
    method: "GET",
    path: "/api/v1/clusters/{name}/rollouts",
    summary: "The rollouts that took a cluster in or left it out, newest first (at most 50)",
    access: "any",
    params: z.object({ name: z.string().min(1).max(253) }),
    answer: z.strictObject({ rollouts: z.array(ClusterRollout) }),
  }),
  list: endpoint({
    method: "GET",
    path: "/api/v1/rollouts",
    summary: "Rollouts, newest first",
    access: "any",
    answer: z.strictObject({ rollouts: z.array(RolloutSummary) }),
  }),
  create: endpoint({
    method: "POST",
    path: "/api/v1/rollouts",
    summary: "Plan a rollout; with dryRun, only show the plan",
    description:
      "Resolves the selection (the fleet view's query string, or names), checks each cluster before it enters (the first reason it may not, in `excluded`), and plans the waves. With `dryRun: true` nothing is saved and the answer is the plan; otherwise the plan is saved waiting for approval by someone else and the answer is the rollout (201). Durations are written as Kubernetes writes them (30m, 2h).",
    access: ["technician"],
    body: RolloutRequestSchema,
    maxBodyBytes: 512 * 1024,
    status: 201,
    errors: [409, 422],
    work: { kind: "rollout-plan" },
    answer: z.union([RolloutPlanAnswer, RolloutView]),
  }),
  get: endpoint({
    method: "GET",
    path: "/api/v1/rollouts/{id}",
    summary: "A rollout: every setting of its plan, its waves and their states, the failure budget",
    description:
      "The answer's `ETag` is the plan's digest (also `digest` in the body): approving sends it back as `If-Match`, so what is approved is the version reviewed.",
    access: "any",
    params: RolloutParams,
    answer: RolloutView,
  }),
  clusters: endpoint({
    method: "GET",
    path: "/api/v1/rollouts/{id}/clusters",
    summary: "A page of a rollout's clusters, in wave then name order",
    access: "any",
    params: RolloutParams,
    query: z.object({
      state: z.enum(ROLLOUT_CLUSTER_STATES).optional(),
      after: z.string().max(300).optional(),
      limit: z.coerce.number().int().min(1).max(1000).default(100),
    }),
    answer: RolloutClusterPage,
  }),
  approve: endpoint({
    method: "POST",
    path: "/api/v1/rollouts/{id}/approve",
    summary: "Approve the version of a planned rollout that was reviewed (never by its requester)",
    description:
      "Send the digest of the plan reviewed: `If-Match` with the ETag of `GET /api/v1/rollouts/{id}`, or `digest` in the body. Without one the answer is 428; when the plan changed since (another digest) it is 409 and nothing starts. Approval freezes each cluster's maintenance window from its labels as the digest covered them, and starts the rollout: its first wave begins inside its windows. The audit event names the digest.",
    access: ["approver"],
    personOnly: "approve a rollout",
    params: RolloutParams,
    body: Approval,
    errors: [409, 428],
    answer: RolloutView,
  }),
  pause: action(
    "pause",
    "Pause a running rollout",
    ["technician", "approver"],
    "No new cluster starts and no cluster write not yet sent is sent; steps already written are followed to their end. `inFlight` counts the writes that were on the wire at the pause.",
    RolloutBrakeAnswer,
  ),
  resume: action(
    "resume",
    "Resume a paused rollout",
    ["approver"],
    "Also the way on after the failure budget paused it: the decision is recorded.",
    RolloutView,
    "resume a rollout",
  ),
  release: endpoint({
    method: "POST",
    path: "/api/v1/rollouts/{id}/release",
    summary: "Release the wave a rollout waits on (plans with releaseEachWave)",
    description:
      "`wave` names the wave being released (the rollout's `awaitingRelease`), so a stale page cannot release the wave after it. Its clusters then start inside their windows.",
    access: ["approver"],
    personOnly: "release a wave",
    params: RolloutParams,
    body: z.strictObject({
      wave: z.number().int().min(1).max(10_000),
      comment: z.string().trim().max(2000, "the comment may be at most 2000 characters").default(""),
    }),
    errors: [409],
    answer: RolloutView,
  }),
  decide: endpoint({
    method: "POST",
    path: "/api/v1/rollouts/{id}/clusters",
    summary: "Skip, retry or include clusters of a rollout",
    description:
      "Named clusters with `inState` change only if still in that state; the others are left alone and listed in `leftAlone`. skip (approver): pending, waiting, running or failed clusters end as skipped, and no write to them not yet sent is sent; a step already written stays written and is followed to its end (`inFlight`: the skipped clusters' writes that were on the wire). retry (approver): failed clusters go back to pending and are written again in their wave's turn. include (admin): clusters the checks excluded join the last wave, with the comment recorded as why. Every decision is audited.",
    access: ["approver"],
    personOnly: "skip, retry or include a rollout's clusters",
    params: RolloutParams,
    body: ClusterDecision,
    errors: [409],
    answer: z.strictObject({
      changed: z.array(z.string()),
      leftAlone: z
        .array(z.strictObject({ cluster: z.string(), state: z.enum(ROLLOUT_CLUSTER_STATES).nullable() }))
        .meta({ description: "Clusters named and not changed, with their state now (null: not in this rollout)" }),
      inFlight: InFlight,
      rollout: RolloutView,
    }),
  }),
  abort: action(
    "abort",
    "Abort a rollout for good (a comment saying why is required)",
    ["approver"],
    "No new cluster starts and no cluster write not yet sent is sent; what was written stays written and is followed to its end. `inFlight` counts the writes that were on the wire at the abort.",
    RolloutBrakeAnswer,
    // Ending a rollout for good is a person's decision, as approving it was; a token may pause it.
    "abort a rollout",
  ),
};
