/**
 * Cases transcribed from the MCO's own pinned-image unit tests (openshift/machine-config-operator,
 * release-4.22 at 9027c94cde45; main at 7ff337a4ffac has the same cases): inputs and expected
 * outcomes only, each named by its upstream test and case. Run against Fleetskew's predictions
 * (pinnedImageCases.test.ts) and the simulated MCO (server/simulator/upstreamPinned.test.ts).
 * docs/openshift.md §23 counts them.
 */

const GiB = 1024 ** 3;
const DAEMON = "pkg/daemon/pinned_image_set_test.go";
const CONTROLLER = "pkg/controller/pinnedimageset/pinned_image_set_test.go";
const ROLE = "machineconfiguration.openshift.io/role";

/** The test file's images (`availableImage`, `outOfDiskImage`, `slowImage`). */
export const AVAILABLE_IMAGE = `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${"0".repeat(64)}`;
export const OUT_OF_DISK_IMAGE = `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${"1".repeat(64)}`;
export const SLOW_IMAGE = `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${"c".repeat(64)}`;

export type AllocatableCase = {
  upstream: string;
  /** fakeNode(…, allocatableStorage): allocatable ephemeral storage. */
  allocatable: number;
  /** The one image's compressed size, cached before the check ("uncompressed is x 2"). */
  imageBytes: number;
  minFree: number;
  wantErr: "storage available is less than minimum required" | null;
};

/** TestCheckNodeAllocatableStorage: `checkNodeAllocatableStorage` for workerPis (one image, "image1") on a 25Gi node. */
export const CHECK_NODE_ALLOCATABLE_STORAGE: AllocatableCase[] = [
  {
    upstream: `${DAEMON} TestCheckNodeAllocatableStorage/happy path`,
    allocatable: 25 * GiB,
    imageBytes: 5 * GiB,
    minFree: 10 * GiB,
    wantErr: null,
  },
  {
    upstream: `${DAEMON} TestCheckNodeAllocatableStorage/not enough storage`,
    allocatable: 25 * GiB,
    imageBytes: 10 * GiB,
    minFree: 10 * GiB,
    wantErr: "storage available is less than minimum required",
  },
];

export type PrefetchCase = {
  upstream: string;
  /** The set's images (generateImageSetSpec repeats one image). */
  images: string[];
  /** registryAvailableImages: what the registry serves. */
  registry: string[];
  wantPulled: number | null;
  /**
   * The error `prefetchImageSets` returns (the test asserts its wrapped error); as the daemon writes
   * it into lastFailedGenerationError (`ensurePullImage`: "%w %q (%d tries): %w: %w"). Null: none.
   */
  wantError: string | null;
  /** What Fleetskew tells the technician for that error. */
  fleetskewLabel: string | null;
};

const notFound = (image: string) =>
  `failed to pull image "${image}" (5 tries): timed out waiting for the condition: rpc error: code = NotFound desc = image not found`;
const enospc = `writing blob: storing blob to file "/var/tmp/container_images_storage708850218/3": write /var/tmp/container_images_storage708850218/3: no space left on device`;

/**
 * TestPrefetchImageSets on fakeStableStorageWorkerNode (100Gi). Not transcribed: "invalid auth file"
 * (the pull secret's file is missing on the node; neither Fleetskew nor the simulator models it).
 */
export const PREFETCH_IMAGE_SETS: PrefetchCase[] = [
  {
    upstream: `${DAEMON} TestPrefetchImageSets/happy path`,
    images: [AVAILABLE_IMAGE],
    registry: [AVAILABLE_IMAGE],
    wantPulled: 1,
    wantError: null,
    fleetskewLabel: null,
  },
  {
    // The slow image is not in the registry either: five tries (the backoff's steps) end in wait.ErrWaitTimeout — a real failure, not the prefetch timeout.
    upstream: `${DAEMON} TestPrefetchImageSets/timeout error while pull`,
    images: [SLOW_IMAGE],
    registry: [AVAILABLE_IMAGE],
    wantPulled: 0,
    wantError: notFound(SLOW_IMAGE),
    fleetskewLabel: "failed: image not in the mirror",
  },
  {
    upstream: `${DAEMON} TestPrefetchImageSets/image not found`,
    images: [AVAILABLE_IMAGE],
    registry: [],
    wantPulled: 0,
    wantError: notFound(AVAILABLE_IMAGE),
    fleetskewLabel: "failed: image not in the mirror",
  },
  {
    upstream: `${DAEMON} TestPrefetchImageSets/out of space should drain and return out of space error quickly`,
    images: Array.from({ length: 300 }, () => OUT_OF_DISK_IMAGE),
    registry: [],
    wantPulled: null,
    wantError: `failed to pull image "${OUT_OF_DISK_IMAGE}" (1 tries): ${enospc}: ${enospc}`,
    fleetskewLabel: "failed: disk filled up while pulling",
  },
];

export type EventCase = {
  upstream: string;
  /** The worker pool's spec.pinnedImageSets (fakeWorkerPoolPinnedImageSets / …NoPinnedImageSets). */
  poolSets: string[] | null;
  set: { name: string; labels: Record<string, string> };
  /** The node's manager enqueues its pool (wantCacheElements 1) or not (0). */
  wantEnqueued: boolean;
};

const workerPis = { name: "worker-set", labels: { [ROLE]: "worker" } };
const masterPis = { name: "master-set", labels: { [ROLE]: "master" } };

/** TestPinnedImageSetAddEventHandlers: `addPinnedImageSet` on a worker node enqueues its pool only for a set in the pool. */
export const ADD_EVENT_HANDLERS: EventCase[] = [
  { upstream: `${DAEMON} TestPinnedImageSetAddEventHandlers/happy path`, poolSets: ["worker-set"], set: workerPis, wantEnqueued: true },
  {
    upstream: `${DAEMON} TestPinnedImageSetAddEventHandlers/worker pool with no pinned image sets`,
    poolSets: null,
    set: workerPis,
    wantEnqueued: false,
  },
  {
    upstream: `${DAEMON} TestPinnedImageSetAddEventHandlers/worker pool master pinned image sets`,
    poolSets: null,
    set: masterPis,
    wantEnqueued: false,
  },
];

type Selector = { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values: string[] }[] };
export type SyncHandlerCase = {
  upstream: string;
  pool: { name: string; machineConfigSelector: Selector };
  set: { name: string; labels: Record<string, string> } | null;
  /** The pool's spec.pinnedImageSets after the sync; null: none. */
  want: string[] | null;
};

const masterPool = { name: "master", machineConfigSelector: { matchLabels: { [ROLE]: "master" } } };
const workerPool = { name: "worker", machineConfigSelector: { matchLabels: { [ROLE]: "worker" } } };
const infraPool = {
  name: "infra",
  machineConfigSelector: { matchExpressions: [{ key: ROLE, operator: "In", values: ["worker", "infra"] }] },
};
const infraPis = { name: "infra-set", labels: { [ROLE]: "infra" } };

/** The pinned image set controller's TestSyncHandler: `syncMachineConfigPool` fills spec.pinnedImageSets with the sets the pool's selector matches. */
export const SYNC_HANDLER: SyncHandlerCase[] = [
  { upstream: `${CONTROLLER} TestSyncHandler/happy path`, pool: masterPool, set: masterPis, want: ["master-set"] },
  { upstream: `${CONTROLLER} TestSyncHandler/pool mismatch`, pool: workerPool, set: masterPis, want: null },
  { upstream: `${CONTROLLER} TestSyncHandler/no pinned image sets`, pool: masterPool, set: null, want: null },
  { upstream: `${CONTROLLER} TestSyncHandler/custom infra pool`, pool: infraPool, set: infraPis, want: ["infra-set"] },
  {
    upstream: `${CONTROLLER} TestSyncHandler/custom infra pool also gets worker pinned image sets`,
    pool: infraPool,
    set: workerPis,
    want: ["worker-set"],
  },
];
