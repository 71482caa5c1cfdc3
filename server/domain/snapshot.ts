import type { McoDecision, ResolvedBootImage } from "./bootImages";
import { mcoReleaseFor, type McoRelease } from "./mcoRelease";

/**
 * A cluster as Fleetskew understands it: normalized from the objects read in one sweep, with no raw
 * JSON kept. Everything shown about a cluster (skew, readiness, pools, nodes) is derived from this,
 * and history is the sequence of its changes. Capture time is kept outside, so that two sweeps that
 * saw the same state produce equal snapshots.
 */
export type Condition = { type: string; status: string; reason: string | null; message: string | null; since: string | null };

export type VersionHistoryEntry = { version: string; state: string; startedTime: string | null; completionTime: string | null };

/**
 * One risk of a conditional update. `applies` is the risk's `Applies` condition (openshift/api
 * config/v1 ConditionalUpdateRisk.conditions, gate ClusterUpdateAcceptRisks, TechPreview in 4.22):
 * from the risk in `conditionalUpdates[].risks` or its entry in `status.conditionalUpdateRisks`.
 * Absent or null where the cluster does not report it (the gate off, older releases, older snapshots).
 */
export type ConditionalUpdateRisk = {
  name: string;
  message: string;
  url: string | null;
  applies?: "True" | "False" | "Unknown" | null;
  /** The Applies condition's reason and message (message truncated). */
  appliesReason?: string | null;
  appliesMessage?: string | null;
};

export type ConditionalUpdate = {
  version: string;
  recommended: "True" | "False" | "Unknown";
  risks: ConditionalUpdateRisk[];
};

export type ClusterVersionFacts = {
  /** Newest Completed history entry, else desired version. */
  current: string | null;
  desired: string | null;
  channel: string | null;
  /** desiredUpdate set to something other than the current version: an update was asked for. */
  updating: boolean;
  /** Newest first, as the API keeps it. */
  history: VersionHistoryEntry[];
  conditions: Condition[];
  availableUpdates: string[];
  conditionalUpdates: ConditionalUpdate[];
  multiArch: boolean;
  /**
   * spec.desiredUpdate.acceptRisks[].name: the conditional-update risks the admin accepted (gate
   * ClusterUpdateAcceptRisks). Absent from older snapshots and null where the field is not set (or not served).
   */
  acceptRisks?: string[] | null;
};

export type EnforcementValue = { ocpVersion: string | null; rhcosVersion: string | null };

export type SkewEnforcementFacts = {
  /** The cluster's API has `bootImageSkewEnforcement` (4.20 and later, gate on). */
  served: boolean;
  spec: { mode: string; manual: (EnforcementValue & { mode: string | null }) | null } | null;
  status: { mode: string; automatic: EnforcementValue | null; manual: (EnforcementValue & { mode: string | null }) | null } | null;
};

export type MachineSetFacts = ResolvedBootImage & {
  replicas: number | null;
  /** The MCO's decision if MachineSets were managed with mode All: what enabling managed boot images would do. */
  ifAllManaged: McoDecision;
  /**
   * The same decision by each MCO release line's rules (mcoRelease.ts), for predictions at a release
   * other than the cluster's own. Missing from snapshots stored before Fleetskew kept it.
   */
  ifAllManagedAt?: Partial<Record<McoRelease, McoDecision>>;
};

/** The MCO's decision on `m` with every MachineSet managed, by the rules of the line `release` belongs to. */
export const decisionAt = (m: MachineSetFacts | null | undefined, release: string | null | undefined): McoDecision =>
  m?.ifAllManagedAt?.[mcoReleaseFor(release)] ?? m?.ifAllManaged ?? NOT_RECORDED;
/** A malformed record: no decision, which counts as neither updated nor skipped. */
const NOT_RECORDED: McoDecision = { action: "exclude", reason: "the MCO's decision was not recorded" };

export type PoolFacts = {
  name: string;
  machineCount: number;
  readyMachineCount: number;
  updatedMachineCount: number;
  degradedMachineCount: number;
  paused: boolean;
  degraded: boolean;
  updating: boolean;
  buildInterrupted: boolean;
  /** On-cluster layering: a MachineOSConfig targets this pool. */
  imageMode: boolean;
  pinnedImageSets: string[];
  degradedMessage: string | null;
  /**
   * OS image streams (docs/openshift.md §25.1): spec.osImageStream.name and status.osImageStream.name
   * (null when unset, or where the API prunes them because OSStreams is off), and the stream the pool
   * runs as the MCO decides it (`effectivePoolStreams`). Absent in snapshots stored before Fleetskew read them.
   */
  osImageStream?: { spec: string | null; status: string | null; effective: EffectiveStream | null };
  /**
   * What the RHEL 10 runc check needs of the pool's rendered MachineConfig: null when it was not read
   * (ClusterSnapshot.renderedConfigsUnread says why). Absent in older snapshots.
   */
  renderedCrio?: RenderedCrioFacts | null;
};

/** Which stream a pool runs and what decided it: its own spec, the worker pool's (custom pools), the cluster's default, the MCO's built-in default. */
export type EffectiveStream = { name: string; source: "pool" | "worker" | "cluster-default" | "builtin" };

export type RenderedCrioFacts = {
  rendered: string;
  /** `DetectRuncInMachineConfig`'s effective crio.runtime.default_runtime; null when no drop-in sets it. */
  defaultRuntime: string | null;
  /** Why the drop-ins could not be judged (unreadable, too large, the rendered MachineConfig not found); null when they were. */
  error: string | null;
  /** The source MachineConfig that overrides the OS image (spec.osImageURL), when one does. */
  osImageOverride: string | null;
};

/**
 * OSImageStream `cluster` (openshift/api machineconfiguration/v1 types_osimagestream.go). "not-served":
 * the cluster has no such kind (before 4.22, or OSStreams off); "not-found": served, no object yet;
 * "unreadable": forbidden or failed (a problem with part "OSImageStream" says why).
 */
export type OSImageStreamFacts =
  | { status: "ok"; specDefault: string | null; statusDefault: string | null; available: { name: string; osImage: string | null }[] }
  | { status: "not-served" | "not-found" }
  | { status: "unreadable"; reason: string };

export type PinnedImageProgress = {
  set: string;
  currentGeneration: number | null;
  desiredGeneration: number | null;
  lastFailedGeneration: number | null;
  error: string | null;
};

export type NodeFacts = {
  name: string;
  pool: string | null;
  roles: string[];
  osImage: string | null;
  ready: boolean | null;
  /** The node's DiskPressure condition is True; null when it has none. Missing from snapshots stored before Fleetskew read it. */
  diskPressure?: boolean | null;
  /** Allocatable ephemeral storage in bytes, when the node says. */
  ephemeralBytes: number | null;
  mcoState: string | null;
  pinned: PinnedImageProgress[];
  pinnedProgressing: boolean;
  pinnedDegraded: boolean;
  pinnedMessage: string | null;
};

export type PinnedImageSetFacts = { name: string; images: number; generation: number | null; labels: Record<string, string> };

export type ImageModeFacts = {
  pool: string;
  build: string | null;
  buildState: "succeeded" | "building" | "failed" | "interrupted" | "unknown";
};

/**
 * Whether the cluster is on the bare-metal "legacy provisioning path": the metal3.io Provisioning
 * `provisioning-configuration` exists with a non-empty `spec.provisioningOSDownloadURL`
 * (docs/openshift.md §16.1 rule 2). Read on every platform; it decides skew enforcement only on BareMetal.
 */
export type BareMetalProvisioningFacts = {
  /** true: the URL is set; false: no such object, or the URL is empty; null: unknown (the MCO then assumes legacy). */
  legacyPath: boolean | null;
  /** Why, in words: what was read, or why nothing could be. */
  reason: string;
};

/**
 * One release bundle of a registry-less cluster, as the InternalReleaseImage or one node's
 * MachineConfigNode lists it (openshift/api machineconfiguration/v1 `InternalReleaseImageBundleStatus`):
 * `ocp-release-bundle-<version>-<arch|stream>`, its release image by digest once installed, and its
 * conditions (Mounted, Installing, Available, Removing, Degraded).
 */
export type IriReleaseFacts = { name: string; image: string | null; conditions: Condition[] };

/** One control-plane node's own registry, from its MachineConfigNode status.internalReleaseImage. */
export type IriNodeFacts = {
  node: string;
  /** The MachineConfigNode condition InternalReleaseImageDegraded; null when the node has none. */
  degraded: Condition | null;
  releases: IriReleaseFacts[];
};

/**
 * The InternalReleaseImage singleton `cluster` of a cluster installed without a registry
 * (machineconfiguration.openshift.io/v1, docs/openshift.md §24). Its nodes
 * pull releases only from what it serves on port 22625.
 */
export type InternalReleaseImageFacts = {
  /** spec.releases[].name: the bundles asked for. */
  requested: string[];
  /** status.releases: the bundles the cluster holds, with the controller's aggregated conditions. */
  releases: IriReleaseFacts[];
  /** status.conditions (only Degraded). */
  conditions: Condition[];
  /** Every node whose MachineConfigNode reports internalReleaseImage status or its Degraded condition, by name. */
  nodes: IriNodeFacts[];
};

/**
 * One firing alert of a kind `oc adm upgrade recommend` looks at (server/domain/readiness/alerts.ts
 * `alertGroupOf`), as the cluster's Thanos querier reported it; strings truncated.
 */
export type FiringAlert = {
  name: string;
  severity: string | null;
  namespace: string | null;
  /** The `poddisruptionbudget` label of the PodDisruptionBudget*Limit alerts. */
  podDisruptionBudget: string | null;
  /** Labelled openShiftUpdatePrecheck="true". */
  updatePrecheck: boolean;
  summary: string | null;
  description: string | null;
};

/** The cluster's firing alerts, read from its Thanos querier through its Route or a hub's cluster-proxy (docs/openshift.md §27.3). */
export type AlertFacts = {
  /** Firing alerts of the groups the update tooling checks, at most MAX_STORED_ALERTS (server/collector/alerts.ts). */
  firing: FiringAlert[];
  /** How many such alerts were firing; more than `firing.length` when some were left out. */
  relevant: number;
};

/** One part of the read that failed; the rest of the snapshot stands. */
export type ReadProblem = { part: string; kind: "not-available" | "error"; message: string };

/** Image → RHCOS build → OCP release, as one cluster's coreos-bootimages stream names them (fleet catalog). */
export type StreamImage = { key: string; rhcosBuild: string; ocpVersion: string | null };

export type ClusterSnapshot = {
  version: ClusterVersionFacts | null;
  platform: string | null;
  /** Infrastructure status.controlPlaneTopology, e.g. SingleReplica for single-node clusters. */
  topology: string | null;
  /** Infrastructure status.platformStatus.azure.cloudName (AzureStackCloud: Azure Stack Hub); missing from older snapshots. */
  azureCloudName?: string | null;
  /** kubernetes.io/arch of the control-plane nodes, the architecture the MCO assumes for MachineSets without an annotation. */
  controlPlaneArchitecture?: string | null;
  /** ClusterOperator machine-config conditions (Upgradeable, Degraded, …). */
  machineConfigOperator: Condition[] | null;
  enforcement: SkewEnforcementFacts | null;
  /**
   * MachineSet boot-image management mode (All, Partial, None) as the admin set it and as the MCO
   * applies it; null when not set. `specEmptyList`: spec.managedBootImages.machineManagers is an
   * explicitly empty list, the legacy full opt-out the MCO mirrors to status (docs/openshift.md §13.2);
   * missing from snapshots stored before Fleetskew read it.
   */
  managedMachineSets: { spec: string | null; status: string | null; specEmptyList?: boolean };
  optedInAt: string | null;
  bootImageConditions: Condition[];
  /** coreos-bootimages data.releaseVersion. */
  bootImageRelease: string | null;
  streamImages: StreamImage[];
  machineSets: MachineSetFacts[];
  pools: PoolFacts[];
  nodes: NodeFacts[];
  pinnedImageSets: PinnedImageSetFacts[];
  imageMode: ImageModeFacts[];
  adminGates: Record<string, string> | null;
  adminAcks: Record<string, string> | null;
  /** Missing from snapshots stored before Fleetskew read it: treat as unknown (legacy path assumed, as the MCO does). */
  bareMetalProvisioning?: BareMetalProvisioningFacts;
  /**
   * The InternalReleaseImage of a registry-less cluster; null or absent (snapshots stored before
   * Fleetskew read it) when the cluster is not registry-less or it could not be read (then a problem
   * with part "InternalReleaseImage" says why).
   */
  internalReleaseImage?: InternalReleaseImageFacts | null;
  /**
   * Firing alerts. Null when they could not be read (a problem with part "Alerts" says why: no
   * permission, no querier, the querier refused); absent from snapshots stored before Fleetskew read them.
   */
  alerts?: AlertFacts | null;
  /**
   * FeatureGate/cluster: null when it could not be read (a problem with part "FeatureGate" says why
   * when it was an error), absent in snapshots stored before Fleetskew read it.
   */
  featureGate?: FeatureGateFacts | null;
  /** OSImageStream/cluster; absent in snapshots stored before Fleetskew read it. */
  osImageStream?: OSImageStreamFacts;
  /** Why the pools' rendered MachineConfigs were not read (PoolFacts.renderedCrio is then null); null when they were. */
  renderedConfigsUnread?: string | null;
  problems: ReadProblem[];
};

/**
 * FeatureGate/cluster (openshift/api config/v1 types_feature.go; docs/openshift.md §25): the feature
 * set decides gates such as IrreconcilableMachineConfig, and status lists the gates each release
 * version the cluster has run turned on.
 */
export type FeatureGateFacts = {
  /** spec.featureSet, "Default" when empty or unset (the API's meaning of ""). */
  featureSet: string;
  /** The version of the status entry for the cluster's current release, when there is one. */
  version: string | null;
  /** The gates status.featureGates lists as enabled for that version; null when no entry matches. */
  enabled: string[] | null;
};

export const conditionOf = (conditions: Condition[] | null | undefined, type: string): Condition | null =>
  (conditions ?? []).find((c) => c.type === type) ?? null;
