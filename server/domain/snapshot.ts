import { z } from "zod";
import { mcoReleaseFor, type McoRelease } from "./mcoRelease";
import { McoDecisionSchema, ResolvedBootImageSchema, type McoDecision } from "./resolvedBootImage";

/**
 * A cluster as Fleetskew understands it: normalized from the objects read in one sweep, with no raw
 * JSON kept. Everything shown about a cluster (skew, readiness, pools, nodes) is derived from this,
 * and history is the sequence of its changes. Capture time is kept outside, so that two sweeps that
 * saw the same state produce equal snapshots.
 *
 * The zod schema below is the one definition: the types are inferred from it, the store decodes every
 * stored snapshot with it, and the API describes the snapshot it sends with it. Parts that snapshots
 * stored by earlier versions lack are optional.
 */
export const ConditionSchema = z
  .object({
    type: z.string(),
    status: z.string(),
    reason: z.string().nullable(),
    message: z.string().nullable(),
    since: z.string().nullable(),
  })
  .meta({ id: "Condition" });
export type Condition = z.output<typeof ConditionSchema>;

const VersionHistoryEntrySchema = z.object({
  version: z.string(),
  state: z.string(),
  startedTime: z.string().nullable(),
  completionTime: z.string().nullable(),
});
export type VersionHistoryEntry = z.output<typeof VersionHistoryEntrySchema>;

const ConditionStatus = z.enum(["True", "False", "Unknown"]);

/**
 * One risk of a conditional update. `applies` is the risk's `Applies` condition (openshift/api
 * config/v1 ConditionalUpdateRisk.conditions, gate ClusterUpdateAcceptRisks, TechPreview in 4.22):
 * from the risk in `conditionalUpdates[].risks` or its entry in `status.conditionalUpdateRisks`.
 * Absent or null where the cluster does not report it (the gate off, older releases, older snapshots).
 */
const ConditionalUpdateRiskSchema = z.object({
  name: z.string(),
  message: z.string(),
  url: z.string().nullable(),
  applies: ConditionStatus.nullable().optional(),
  /** The Applies condition's reason and message (message truncated). */
  appliesReason: z.string().nullable().optional(),
  appliesMessage: z.string().nullable().optional(),
});
export type ConditionalUpdateRisk = z.output<typeof ConditionalUpdateRiskSchema>;

const ConditionalUpdateSchema = z.object({
  version: z.string(),
  recommended: ConditionStatus,
  /**
   * The CVO's own Recommended condition's reason and message (NotExposedToRisks, AllExposedRisksAccepted,
   * EvaluationFailed, ExposedToRisks, a risk's name, MultipleReasons: pkg/cvo/availableupdates.go
   * `evaluateConditionalUpdate`). Absent from older snapshots.
   */
  recommendedReason: z.string().nullable().optional(),
  recommendedMessage: z.string().nullable().optional(),
  /** More risks than Fleetskew keeps: the update is never judged cleared on the part it kept. */
  risksCut: z.boolean().optional(),
  risks: z.array(ConditionalUpdateRiskSchema),
});
export type ConditionalUpdate = z.output<typeof ConditionalUpdateSchema>;

const ClusterVersionFactsSchema = z.object({
  /** Newest Completed history entry, else desired version. */
  current: z.string().nullable(),
  desired: z.string().nullable(),
  channel: z.string().nullable(),
  /** desiredUpdate set to something other than the current version: an update was asked for. */
  updating: z.boolean(),
  /** Newest first, as the API keeps it. */
  history: z.array(VersionHistoryEntrySchema),
  conditions: z.array(ConditionSchema),
  availableUpdates: z.array(z.string()),
  conditionalUpdates: z.array(ConditionalUpdateSchema),
  multiArch: z.boolean(),
  /**
   * spec.desiredUpdate.acceptRisks[].name: the conditional-update risks the admin accepted (gate
   * ClusterUpdateAcceptRisks). Absent from older snapshots and null where the field is not set (or not served).
   */
  acceptRisks: z.array(z.string()).nullable().optional(),
});
export type ClusterVersionFacts = z.output<typeof ClusterVersionFactsSchema>;

const EnforcementValueSchema = z.object({ ocpVersion: z.string().nullable(), rhcosVersion: z.string().nullable() });
export type EnforcementValue = z.output<typeof EnforcementValueSchema>;
const ManualEnforcementSchema = EnforcementValueSchema.extend({ mode: z.string().nullable() });

const SkewEnforcementFactsSchema = z.object({
  /** The cluster's API has `bootImageSkewEnforcement` (4.20 and later, gate on). */
  served: z.boolean(),
  spec: z.object({ mode: z.string(), manual: ManualEnforcementSchema.nullable() }).nullable(),
  status: z
    .object({ mode: z.string(), automatic: EnforcementValueSchema.nullable(), manual: ManualEnforcementSchema.nullable() })
    .nullable(),
});
export type SkewEnforcementFacts = z.output<typeof SkewEnforcementFactsSchema>;

/** One decision per MCO release line Fleetskew knows (mcoRelease.ts): `satisfies` keeps the keys in step with McoRelease. */
const DecisionsByRelease = z.strictObject({
  "4.22": McoDecisionSchema.optional(),
  "4.23": McoDecisionSchema.optional(),
} satisfies Record<McoRelease, z.ZodType>);

const MachineSetFactsSchema = ResolvedBootImageSchema.extend({
  replicas: z.number().nullable(),
  /** The MCO's decision if MachineSets were managed with mode All: what enabling managed boot images would do. */
  ifAllManaged: McoDecisionSchema,
  /**
   * The same decision by each MCO release line's rules (mcoRelease.ts), for predictions at a release
   * other than the cluster's own. Missing from snapshots stored before Fleetskew kept it.
   */
  ifAllManagedAt: DecisionsByRelease.optional(),
});
export type MachineSetFacts = z.output<typeof MachineSetFactsSchema>;

/** The MCO's decision on `m` with every MachineSet managed, by the rules of the line `release` belongs to. */
export const decisionAt = (m: MachineSetFacts | null | undefined, release: string | null | undefined): McoDecision =>
  m?.ifAllManagedAt?.[mcoReleaseFor(release)] ?? m?.ifAllManaged ?? NOT_RECORDED;
/** A malformed record: no decision, which counts as neither updated nor skipped. */
const NOT_RECORDED: McoDecision = { action: "exclude", reason: "the MCO's decision was not recorded" };

/** Which stream a pool runs and what decided it: its own spec, the worker pool's (custom pools), the cluster's default, the MCO's built-in default. */
const EffectiveStreamSchema = z.object({ name: z.string(), source: z.enum(["pool", "worker", "cluster-default", "builtin"]) });
export type EffectiveStream = z.output<typeof EffectiveStreamSchema>;

const RenderedCrioFactsSchema = z.object({
  rendered: z.string(),
  /** `DetectRuncInMachineConfig`'s effective crio.runtime.default_runtime; null when no drop-in sets it. */
  defaultRuntime: z.string().nullable(),
  /** Why the drop-ins could not be judged (unreadable, too large, the rendered MachineConfig not found); null when they were. */
  error: z.string().nullable(),
  /** The source MachineConfig that overrides the OS image (spec.osImageURL), when one does. */
  osImageOverride: z.string().nullable(),
});
export type RenderedCrioFacts = z.output<typeof RenderedCrioFactsSchema>;

const PoolFactsSchema = z.object({
  name: z.string(),
  machineCount: z.number(),
  readyMachineCount: z.number(),
  updatedMachineCount: z.number(),
  degradedMachineCount: z.number(),
  paused: z.boolean(),
  degraded: z.boolean(),
  updating: z.boolean(),
  buildInterrupted: z.boolean(),
  /** On-cluster layering: a MachineOSConfig targets this pool. */
  imageMode: z.boolean(),
  pinnedImageSets: z.array(z.string()),
  degradedMessage: z.string().nullable(),
  /**
   * OS image streams (docs/openshift.md §25.1): spec.osImageStream.name and status.osImageStream.name
   * (null when unset, or where the API prunes them because OSStreams is off), and the stream the pool
   * runs as the MCO decides it (`effectivePoolStreams`). Absent in snapshots stored before Fleetskew read them.
   */
  osImageStream: z
    .object({ spec: z.string().nullable(), status: z.string().nullable(), effective: EffectiveStreamSchema.nullable() })
    .optional()
    .meta({
      description:
        "spec.osImageStream.name, status.osImageStream.name, and the stream the pool runs as the MCO decides it (docs/openshift.md §25.1)",
    }),
  /**
   * What the RHEL 10 runc check needs of the pool's rendered MachineConfig: null when it was not read
   * (ClusterSnapshot.renderedConfigsUnread says why). Absent in older snapshots.
   */
  renderedCrio: RenderedCrioFactsSchema.nullable()
    .optional()
    .meta({ description: "CRI-O's default runtime in the pool's rendered MachineConfig, as DetectRuncInMachineConfig finds it" }),
});
export type PoolFacts = z.output<typeof PoolFactsSchema>;

/**
 * OSImageStream `cluster` (openshift/api machineconfiguration/v1 types_osimagestream.go). "not-served":
 * the cluster has no such kind (before 4.22, or OSStreams off); "not-found": served, no object yet;
 * "unreadable": forbidden or failed (a problem with part "OSImageStream" says why).
 */
const OSImageStreamFactsSchema = z.union([
  z.object({
    status: z.literal("ok"),
    specDefault: z.string().nullable(),
    statusDefault: z.string().nullable(),
    available: z.array(z.object({ name: z.string(), osImage: z.string().nullable() })),
  }),
  z.object({ status: z.enum(["not-served", "not-found"]) }),
  z.object({ status: z.literal("unreadable"), reason: z.string() }),
]);
export type OSImageStreamFacts = z.output<typeof OSImageStreamFactsSchema>;

const PinnedImageProgressSchema = z.object({
  set: z.string(),
  currentGeneration: z.number().nullable(),
  desiredGeneration: z.number().nullable(),
  lastFailedGeneration: z.number().nullable(),
  error: z.string().nullable(),
});
export type PinnedImageProgress = z.output<typeof PinnedImageProgressSchema>;

const NodeFactsSchema = z.object({
  name: z.string(),
  pool: z.string().nullable(),
  roles: z.array(z.string()),
  osImage: z.string().nullable(),
  ready: z.boolean().nullable(),
  /** The node's DiskPressure condition is True; null when it has none. Missing from snapshots stored before Fleetskew read it. */
  diskPressure: z.boolean().nullable().optional(),
  /** Allocatable ephemeral storage in bytes, when the node says. */
  ephemeralBytes: z.number().nullable(),
  mcoState: z.string().nullable(),
  pinned: z.array(PinnedImageProgressSchema),
  pinnedProgressing: z.boolean(),
  pinnedDegraded: z.boolean(),
  pinnedMessage: z.string().nullable(),
});
export type NodeFacts = z.output<typeof NodeFactsSchema>;

const PinnedImageSetFactsSchema = z.object({
  name: z.string(),
  images: z.number(),
  generation: z.number().nullable(),
  labels: z.record(z.string(), z.string()),
});
export type PinnedImageSetFacts = z.output<typeof PinnedImageSetFactsSchema>;

const ImageModeFactsSchema = z.object({
  pool: z.string(),
  build: z.string().nullable(),
  buildState: z.enum(["succeeded", "building", "failed", "interrupted", "unknown"]),
});
export type ImageModeFacts = z.output<typeof ImageModeFactsSchema>;

/**
 * Whether the cluster is on the bare-metal "legacy provisioning path": the metal3.io Provisioning
 * `provisioning-configuration` exists with a non-empty `spec.provisioningOSDownloadURL`
 * (docs/openshift.md §16.1 rule 2). Read on every platform; it decides skew enforcement only on BareMetal.
 */
const BareMetalProvisioningFactsSchema = z.object({
  /** true: the URL is set; false: no such object, or the URL is empty; null: unknown (the MCO then assumes legacy). */
  legacyPath: z.boolean().nullable(),
  /** Why, in words: what was read, or why nothing could be. */
  reason: z.string(),
});
export type BareMetalProvisioningFacts = z.output<typeof BareMetalProvisioningFactsSchema>;

/**
 * One release bundle of a registry-less cluster, as the InternalReleaseImage or one node's
 * MachineConfigNode lists it (openshift/api machineconfiguration/v1 `InternalReleaseImageBundleStatus`):
 * `ocp-release-bundle-<version>-<arch|stream>`, its release image by digest once installed, and its
 * conditions (Mounted, Installing, Available, Removing, Degraded).
 */
const IriReleaseFactsSchema = z.object({ name: z.string(), image: z.string().nullable(), conditions: z.array(ConditionSchema) });
export type IriReleaseFacts = z.output<typeof IriReleaseFactsSchema>;

/** One control-plane node's own registry, from its MachineConfigNode status.internalReleaseImage. */
const IriNodeFactsSchema = z.object({
  node: z.string(),
  /** The MachineConfigNode condition InternalReleaseImageDegraded; null when the node has none. */
  degraded: ConditionSchema.nullable(),
  releases: z.array(IriReleaseFactsSchema),
});
export type IriNodeFacts = z.output<typeof IriNodeFactsSchema>;

/**
 * The InternalReleaseImage singleton `cluster` of a cluster installed without a registry
 * (machineconfiguration.openshift.io/v1, docs/openshift.md §24). Its nodes
 * pull releases only from what it serves on port 22625.
 */
const InternalReleaseImageFactsSchema = z.object({
  /** spec.releases[].name: the bundles asked for. */
  requested: z.array(z.string()),
  /** status.releases: the bundles the cluster holds, with the controller's aggregated conditions. */
  releases: z.array(IriReleaseFactsSchema),
  /** status.conditions (only Degraded). */
  conditions: z.array(ConditionSchema),
  /** Every node whose MachineConfigNode reports internalReleaseImage status or its Degraded condition, by name. */
  nodes: z.array(IriNodeFactsSchema),
});
export type InternalReleaseImageFacts = z.output<typeof InternalReleaseImageFactsSchema>;

/**
 * One firing alert of a kind `oc adm upgrade recommend` looks at (server/domain/readiness/alerts.ts
 * `alertGroupOf`), as the cluster's Thanos querier reported it; strings truncated.
 */
const FiringAlertSchema = z.object({
  name: z.string(),
  severity: z.string().nullable(),
  namespace: z.string().nullable(),
  /** The `poddisruptionbudget` label of the PodDisruptionBudget*Limit alerts. */
  podDisruptionBudget: z.string().nullable(),
  /** Labelled openShiftUpdatePrecheck="true". */
  updatePrecheck: z.boolean(),
  summary: z.string().nullable(),
  description: z.string().nullable(),
});
export type FiringAlert = z.output<typeof FiringAlertSchema>;

/** The cluster's firing alerts, read from its Thanos querier through its Route or a hub's cluster-proxy (docs/openshift.md §27.3). */
const AlertFactsSchema = z.object({
  /** Firing alerts of the groups the update tooling checks, at most MAX_STORED_ALERTS (server/collector/alerts.ts). */
  firing: z.array(FiringAlertSchema),
  /** How many such alerts were firing; more than `firing.length` when some were left out. */
  relevant: z.number(),
});
export type AlertFacts = z.output<typeof AlertFactsSchema>;

/** One part of the read that failed; the rest of the snapshot stands. */
const ReadProblemSchema = z.object({ part: z.string(), kind: z.enum(["not-available", "error"]), message: z.string() });
export type ReadProblem = z.output<typeof ReadProblemSchema>;

/** Image → RHCOS build → OCP release, as one cluster's coreos-bootimages stream names them (fleet catalog). */
const StreamImageSchema = z.object({ key: z.string(), rhcosBuild: z.string(), ocpVersion: z.string().nullable() });
export type StreamImage = z.output<typeof StreamImageSchema>;

/**
 * FeatureGate/cluster (openshift/api config/v1 types_feature.go; docs/openshift.md §25): the feature
 * set decides gates such as IrreconcilableMachineConfig, and status lists the gates each release
 * version the cluster has run turned on.
 */
const FeatureGateFactsSchema = z.object({
  /** spec.featureSet, "Default" when empty or unset (the API's meaning of ""). */
  featureSet: z.string(),
  /** The version of the status entry for the cluster's current release, when there is one. */
  version: z.string().nullable(),
  /** The gates status.featureGates lists as enabled for that version; null when no entry matches. */
  enabled: z.array(z.string()).nullable(),
});
export type FeatureGateFacts = z.output<typeof FeatureGateFactsSchema>;

export const ClusterSnapshotSchema = z.object({
  version: ClusterVersionFactsSchema.nullable(),
  platform: z.string().nullable(),
  /** Infrastructure status.controlPlaneTopology, e.g. SingleReplica for single-node clusters. */
  topology: z.string().nullable(),
  /** Infrastructure status.platformStatus.azure.cloudName (AzureStackCloud: Azure Stack Hub); missing from older snapshots. */
  azureCloudName: z.string().nullable().optional(),
  /** kubernetes.io/arch of the control-plane nodes, the architecture the MCO assumes for MachineSets without an annotation. */
  controlPlaneArchitecture: z.string().nullable().optional(),
  /** ClusterOperator machine-config conditions (Upgradeable, Degraded, …). */
  machineConfigOperator: z.array(ConditionSchema).nullable(),
  enforcement: SkewEnforcementFactsSchema.nullable(),
  /**
   * MachineSet boot-image management mode (All, Partial, None) as the admin set it and as the MCO
   * applies it; null when not set. `specEmptyList`: spec.managedBootImages.machineManagers is an
   * explicitly empty list, the legacy full opt-out the MCO mirrors to status (docs/openshift.md §13.2);
   * missing from snapshots stored before Fleetskew read it.
   */
  managedMachineSets: z.object({ spec: z.string().nullable(), status: z.string().nullable(), specEmptyList: z.boolean().optional() }),
  optedInAt: z.string().nullable(),
  bootImageConditions: z.array(ConditionSchema),
  /** coreos-bootimages data.releaseVersion. */
  bootImageRelease: z.string().nullable(),
  streamImages: z.array(StreamImageSchema),
  machineSets: z.array(MachineSetFactsSchema),
  pools: z.array(PoolFactsSchema),
  nodes: z.array(NodeFactsSchema),
  pinnedImageSets: z.array(PinnedImageSetFactsSchema),
  imageMode: z.array(ImageModeFactsSchema),
  adminGates: z.record(z.string(), z.string()).nullable(),
  adminAcks: z.record(z.string(), z.string()).nullable(),
  /** Missing from snapshots stored before Fleetskew read it: treat as unknown (legacy path assumed, as the MCO does). */
  bareMetalProvisioning: BareMetalProvisioningFactsSchema.optional(),
  /**
   * The InternalReleaseImage of a registry-less cluster; null or absent (snapshots stored before
   * Fleetskew read it) when the cluster is not registry-less or it could not be read (then a problem
   * with part "InternalReleaseImage" says why).
   */
  internalReleaseImage: InternalReleaseImageFactsSchema.nullable().optional(),
  /**
   * Firing alerts. Null when they could not be read (a problem with part "Alerts" says why: no
   * permission, no querier, the querier refused); absent from snapshots stored before Fleetskew read them.
   */
  alerts: AlertFactsSchema.nullable().optional(),
  /**
   * FeatureGate/cluster: null when it could not be read (a problem with part "FeatureGate" says why
   * when it was an error), absent in snapshots stored before Fleetskew read it.
   */
  featureGate: FeatureGateFactsSchema.nullable()
    .optional()
    .meta({ description: "FeatureGate/cluster: its feature set and the gates enabled at the cluster's version (docs/openshift.md §25)" }),
  /** OSImageStream/cluster; absent in snapshots stored before Fleetskew read it. */
  osImageStream: OSImageStreamFactsSchema.optional().meta({
    description: "OSImageStream/cluster: the default stream and the streams available (docs/openshift.md §25.1)",
  }),
  /** Why the pools' rendered MachineConfigs were not read (PoolFacts.renderedCrio is then null); null when they were. */
  renderedConfigsUnread: z.string().nullable().optional(),
  problems: z.array(ReadProblemSchema),
});
export type ClusterSnapshot = z.output<typeof ClusterSnapshotSchema>;

export const conditionOf = (conditions: Condition[] | null | undefined, type: string): Condition | null =>
  (conditions ?? []).find((c) => c.type === type) ?? null;
