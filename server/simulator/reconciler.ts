import type { Fleet, SimCluster } from "./cluster";
import { cvoInputsOf, giantHopRefusal, minorUpdateBlocked, withCvoUpgradeable } from "./cvo";
import { withVersion } from "./featureGate";
import { osImageStreamObject } from "./osImageStream";
import { apiVersionOf, type KindInfo } from "./kinds";
import { reconcileMachineConfigUpgradeable, reconcileMachineConfiguration, type ClusterView } from "./mco";
import { reconcileInternalReleaseImage } from "./mco/internalReleaseImage";
import {
  newDaemonState,
  poolPinnedImageSets,
  poolsForNode,
  prefetchTimeoutFor,
  syncNode,
  type DaemonState,
  type Mirror,
} from "./mco/pinnedImages";
import { amiFor, BOOT_IMAGE_BUILDS, gcpImageFor, PUBLISHED_AMIS } from "./scenarios/bootImages";
import type { KubeObject } from "./objectStore";

/**
 * Plays the parts of the Machine Config Operator and the Cluster Version Operator that Fleetskew
 * triggers, on a simulated clock, with the simulator's own implementation of their rules
 * (server/simulator/mco, cvo.ts; docs/openshift.md §13–§21). It acts only on clusters that were
 * written to (or that have work in progress), so untouched clusters are served exactly as loaded.
 */
export type SimClock = { now: () => Date };

/** A clock that runs `speed` times faster than real time from `start`. */
export function scaledClock(speed: number, start: Date = new Date()): SimClock {
  const realStart = Date.now();
  return { now: () => new Date(start.getTime() + (Date.now() - realStart) * speed) };
}

export type ReconcilerOptions = {
  /** Simulated time a pinned image takes to pull on one prefetch worker (a scenario may set its own). */
  pullSecondsPerImage: number;
  /** Compressed size of an image the scenario's mirror does not list (one layer). */
  defaultImageBytes: number;
  /** Simulated time an upgrade takes. */
  upgradeSeconds: number;
};

export const DEFAULT_RECONCILER_OPTIONS: ReconcilerOptions = {
  pullSecondsPerImage: 120,
  defaultImageBytes: 1024 ** 3,
  upgradeSeconds: 90 * 60,
};

const GiB = 1024 ** 3;
const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, "Z");
type Condition = { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string };
type Any = Record<string, any>;

/** Sets a condition, keeping lastTransitionTime when the status does not change. */
function setCondition(conditions: Condition[], next: Condition, now: Date): Condition[] {
  const old = conditions.find((c) => c.type === next.type);
  const merged = { ...next, lastTransitionTime: old && old.status === next.status ? old.lastTransitionTime : iso(now) };
  return old ? conditions.map((c) => (c.type === next.type ? merged : c)) : [...conditions, merged];
}

/** Parses Kubernetes quantities like "114345831029", "120Gi", "500M". */
export function parseQuantity(q: string | undefined): number | null {
  if (!q) return null;
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(q.trim());
  if (!m) return null;
  const mult: Record<string, number> = { Ki: 1024, Mi: 1024 ** 2, Gi: GiB, Ti: 1024 ** 4, k: 1e3, M: 1e6, G: 1e9, T: 1e12 };
  return Number(m[1]) * (m[2] ? mult[m[2]]! : 1);
}

export class Reconciler {
  private readonly active = new Set<SimCluster>();
  /** Each node's machine-config-daemon pinned-image state (mco/pinnedImages.ts), by cluster/node. */
  private readonly daemons = new Map<string, DaemonState>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly fleet: Fleet,
    private readonly clock: SimClock,
    private readonly options: ReconcilerOptions = DEFAULT_RECONCILER_OPTIONS,
  ) {
    fleet.onWrite = (cluster) => this.active.add(cluster);
  }

  /** Reconciles active clusters every `intervalMs` of real time. */
  start(intervalMs = 250): void {
    this.timer ??= setInterval(() => this.reconcileActive(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  reconcileActive(): void {
    for (const cluster of [...this.active]) {
      try {
        if (!this.reconcile(cluster)) this.active.delete(cluster);
      } catch (error) {
        console.error(`simulator: reconciling ${cluster.name} failed:`, error);
        this.active.delete(cluster);
      }
    }
  }

  /** One pass over a cluster; returns true while time-based work (pulls, an upgrade) is in progress. */
  reconcile(cluster: SimCluster): boolean {
    const upgrading = this.reconcileUpgrade(cluster);
    reconcileMachineConfiguration(this.view(cluster));
    reconcileInternalReleaseImage(this.view(cluster));
    this.reconcileUpgradeable(cluster);
    const pulling = this.reconcilePinnedImages(cluster);
    return upgrading || pulling;
  }

  private kind(cluster: SimCluster, kind: string): KindInfo | undefined {
    return cluster.kinds.find((k) => k.kind === kind);
  }

  private find(cluster: SimCluster, kind: string, name: string, namespace?: string): KubeObject | null {
    const info = this.kind(cluster, kind);
    if (!info) return null;
    try {
      return cluster.store.get(info, namespace, name);
    } catch {
      return null;
    }
  }

  private list(cluster: SimCluster, kind: string, namespace?: string): KubeObject[] {
    const info = this.kind(cluster, kind);
    return info ? cluster.store.list(info, namespace) : [];
  }

  /** Writes through the store; identical content is a no-op there, so passes converge. */
  private write(cluster: SimCluster, kind: string, obj: Any, subresource?: "status"): void {
    const info = this.kind(cluster, kind)!;
    cluster.store.replace(
      info,
      obj.metadata.namespace,
      obj.metadata.name!,
      { ...obj, metadata: { ...obj.metadata, resourceVersion: undefined } },
      subresource,
    );
  }

  /** The simulated MCO's view of a cluster: reads and writes through the store, as the operators do through the API. */
  private view(cluster: SimCluster): ClusterView {
    return {
      release: cluster.spec.ocpVersion,
      skewEnforcement: cluster.servesSkewEnforcement,
      publishedAmis: PUBLISHED_AMIS,
      ec2: cluster.spec.ec2,
      servesProvisioning: !!this.kind(cluster, "Provisioning"),
      get: (kind, name, namespace) => this.find(cluster, kind, name, namespace) as Any | null,
      list: (kind, namespace) => this.list(cluster, kind, namespace) as Any[],
      put: (kind, obj, subresource) => this.write(cluster, kind, obj, subresource),
      now: () => iso(this.clock.now()),
    };
  }

  /** ClusterOperator machine-config Upgradeable as the MCO sets it, then folded into ClusterVersion by the CVO. */
  private reconcileUpgradeable(cluster: SimCluster): void {
    const cv = this.find(cluster, "ClusterVersion", "version") as Any | null;
    if (!cv) return;
    const now = this.clock.now();
    reconcileMachineConfigUpgradeable(this.view(cluster));
    // The CVO's verdict: admin gates of the current minor and every operator's Upgradeable.
    const inputs = cvoInputsOf([cv as KubeObject, ...this.list(cluster, "ClusterOperator"), ...this.list(cluster, "ConfigMap")]);
    const nextCv = structuredClone(cv);
    nextCv.status.conditions = withCvoUpgradeable((nextCv.status.conditions ?? []) as Condition[], inputs, iso(now));
    this.write(cluster, "ClusterVersion", nextCv, "status");
  }

  /**
   * The MCO's pinned images (mco/pinnedImages.ts): the controller's pool spec, then each node's daemon
   * up to now, its MachineConfigNode status, the pool's PinnedImageSets synchronizer, and — playing
   * the kubelet — the node's status.images.
   */
  private reconcilePinnedImages(cluster: SimCluster): boolean {
    if (!this.kind(cluster, "MachineConfigNode") || !this.kind(cluster, "PinnedImageSet")) return false;
    const now = this.clock.now();
    const sets = this.list(cluster, "PinnedImageSet") as Any[];
    const setsByName = new Map(sets.map((s) => [s.metadata.name, s]));
    let pools = this.list(cluster, "MachineConfigPool") as Any[];
    for (const pool of pools) {
      const names = poolPinnedImageSets(pool, sets);
      if (JSON.stringify(pool.spec?.pinnedImageSets ?? []) !== JSON.stringify(names))
        this.write(cluster, "MachineConfigPool", { ...structuredClone(pool), spec: { ...pool.spec, pinnedImageSets: names } });
    }
    pools = this.list(cluster, "MachineConfigPool") as Any[];
    const mcns = new Map((this.list(cluster, "MachineConfigNode") as Any[]).map((m) => [m.metadata.name, m]));
    const mirror = this.mirrorOf(cluster);
    const mco = cluster.spec.mco ?? {};
    let inProgress = false;
    const done = new Map<string, boolean>();
    for (const node of this.list(cluster, "Node") as Any[]) {
      const mcn = mcns.get(node.metadata.name);
      if (!mcn) continue;
      const key = `${cluster.name}/${node.metadata.name}`;
      let state = this.daemons.get(key);
      if (!state) {
        state = newDaemonState(((node.status?.images ?? []) as Any[]).flatMap((i) => i.names ?? []));
        this.daemons.set(key, state);
      }
      const before = state.onNode.size;
      inProgress =
        syncNode(state, {
          node,
          pools: poolsForNode(node, pools).map((p) => ({
            name: p.metadata.name,
            sets: ((p.spec?.pinnedImageSets ?? []) as Any[]).flatMap((r) => setsByName.get(r.name) ?? []),
          })),
          mirror,
          prefetchTimeoutSeconds: mco.prefetchTimeoutSeconds ?? prefetchTimeoutFor(cluster.minor),
          pullSeconds: mco.pullSecondsPerImage ?? this.options.pullSecondsPerImage,
          now: now.getTime(),
        }) || inProgress;
      if (state.onNode.size !== before) this.writeNodeImages(cluster, node, state.onNode, mirror);
      const status = state.status;
      if (!status) continue;
      done.set(node.metadata.name, !status.progressing && !status.degraded);
      const next = structuredClone(mcn);
      next.status ??= {};
      next.status.pinnedImageSets = status.entries;
      let conditions = (next.status.conditions ?? []) as Condition[];
      conditions = setCondition(
        conditions,
        status.progressing
          ? { type: "PinnedImageSetsProgressing", status: "True", reason: "ImagePrefetch", message: status.progressingMessage }
          : { type: "PinnedImageSetsProgressing", status: "False", reason: "AsExpected", message: status.progressingMessage },
        now,
      );
      conditions = setCondition(
        conditions,
        status.degraded
          ? {
              type: "PinnedImageSetsDegraded",
              status: "True",
              reason: "PrefetchFailed",
              message: "One or more PinnedImageSet is experiencing an error. See PinnedImageSet list for more details.",
            }
          : { type: "PinnedImageSetsDegraded", status: "False", reason: "AsExpected", message: "All is good" },
        now,
      );
      next.status.conditions = conditions;
      this.write(cluster, "MachineConfigNode", next, "status");
    }
    for (const pool of pools) {
      const poolNodes = [...mcns.values()].filter((m) => m.spec?.pool?.name === pool.metadata.name);
      const updated = poolNodes.filter((m) => done.get(m.metadata.name) ?? false).length;
      const sync = pool.spec?.pinnedImageSets?.length
        ? [
            {
              poolSynchronizerType: "PinnedImageSets",
              machineCount: poolNodes.length,
              updatedMachineCount: updated,
              readyMachineCount: updated,
              availableMachineCount: updated,
              unavailableMachineCount: 0,
              observedGeneration: pool.metadata.generation,
            },
          ]
        : [];
      this.write(
        cluster,
        "MachineConfigPool",
        { ...structuredClone(pool), status: { ...pool.status, poolSynchronizersStatus: sync } },
        "status",
      );
    }
    return inProgress;
  }

  /**
   * The site's mirror registry: the scenario's images with their layers; any other image is served
   * too, as one layer of `defaultImageBytes` (so a test pinning made-up images still pulls them).
   */
  private mirrorOf(cluster: SimCluster): Mirror {
    const listed = cluster.spec.mirror ?? {};
    return (image) => listed[image] ?? [{ digest: image.split("@")[1] ?? image, size: this.options.defaultImageBytes }];
  }

  /** The kubelet's status.images: the 50 largest images on the node (`nodeStatusMaxImages`), names and sizes. */
  private writeNodeImages(cluster: SimCluster, node: Any, images: Set<string>, mirror: Mirror): void {
    const fresh = this.find(cluster, "Node", node.metadata.name) as Any | null;
    if (!fresh) return;
    const list = [...images]
      .map((name) => ({ names: [name], sizeBytes: (mirror(name) ?? []).reduce((n, l) => n + l.size, 0) }))
      .sort((a, b) => b.sizeBytes - a.sizeBytes || a.names[0]!.localeCompare(b.names[0]!))
      .slice(0, 50);
    this.write(cluster, "Node", { ...structuredClone(fresh), status: { ...fresh.status, images: list } }, "status");
  }

  /** ClusterVersion spec.desiredUpdate → an upgrade through history; minor updates refused while Upgradeable=False (§20). */
  private reconcileUpgrade(cluster: SimCluster): boolean {
    const cv = this.find(cluster, "ClusterVersion", "version") as Any | null;
    const desired = cv?.spec?.desiredUpdate;
    if (!cv || !desired?.version) return false;
    const now = this.clock.now();
    const history = (cv.status?.history ?? []) as Any[];
    const head = history[0];
    const next = structuredClone(cv);
    let conditions = (next.status.conditions ?? []) as Condition[];

    if (head && head.version === desired.version && head.state === "Partial" && !head.completionTime) {
      const elapsed = (now.getTime() - Date.parse(head.startedTime)) / 1000;
      const trouble = cluster.spec.upgradeTrouble;
      const fraction = Math.min(trouble === "hangs" ? 0.97 : 1, elapsed / this.options.upgradeSeconds);
      if (trouble === "fails" && fraction >= 0.5) {
        // The CVO's words when an operator degrades during an update (cluster-version-operator
        // pkg/cvo/internal/operatorstatus.go: UpdateError reason ClusterOperatorDegraded).
        conditions = setCondition(
          conditions,
          { type: "Failing", status: "True", reason: "ClusterOperatorDegraded", message: "Cluster operator machine-config is degraded" },
          now,
        );
        conditions = setCondition(
          conditions,
          {
            type: "Progressing",
            status: "True",
            reason: "ClusterOperatorDegraded",
            message: `Unable to apply ${desired.version}: the cluster operator machine-config is degraded`,
          },
          now,
        );
        next.status.conditions = conditions;
        this.write(cluster, "ClusterVersion", next, "status");
        return true;
      }
      if (fraction < 1) {
        const waiting = trouble === "hangs" && fraction >= 0.97 ? ", waiting on machine-config" : "";
        const done = Math.floor(fraction * 800);
        conditions = setCondition(
          conditions,
          {
            type: "Progressing",
            status: "True",
            message: `Working towards ${desired.version}: ${done} of 800 done (${Math.floor(fraction * 100)}% complete)${waiting}`,
          },
          now,
        );
        next.status.conditions = conditions;
        this.write(cluster, "ClusterVersion", next, "status");
        return true;
      }
      head.state = "Completed";
      head.completionTime = iso(now);
      next.status.history = [head, ...history.slice(1)];
      conditions = setCondition(
        conditions,
        { type: "Progressing", status: "False", message: `Cluster version is ${desired.version}` },
        now,
      );
      conditions = setCondition(conditions, { type: "Available", status: "True", message: `Done applying ${desired.version}` }, now);
      next.status.conditions = conditions;
      this.write(cluster, "ClusterVersion", next, "status");
      this.completeUpgrade(cluster, desired.version);
      return false;
    }
    if (head?.version === desired.version) return false;
    // Already the release the cluster runs (a desiredUpdate left from the last upgrade).
    if (history.some((h) => h.version === desired.version && h.state === "Completed") && next.status.desired?.version === desired.version)
      return false;

    const hop = giantHopRefusal(next.status.desired?.version, desired.version);
    if (hop) {
      next.status.conditions = setCondition(
        conditions,
        {
          type: "ReleaseAccepted",
          status: "False",
          reason: "PreconditionChecks",
          message: `Preconditions failed for payload loaded version="${desired.version}" image="${desired.image ?? ""}": Precondition "ClusterVersionGiantHop" failed because of "${hop.reason}": ${hop.message}`,
        },
        now,
      );
      this.write(cluster, "ClusterVersion", next, "status");
      return false;
    }
    const upgradeable = conditions.find((c) => c.type === "Upgradeable");
    if (minorUpdateBlocked(next.status.desired?.version, desired.version, upgradeable)) {
      next.status.conditions = setCondition(
        conditions,
        {
          type: "ReleaseAccepted",
          status: "False",
          reason: "PreconditionChecks",
          message: `Preconditions failed for payload loaded version="${desired.version}" image="${desired.image ?? ""}": Precondition "ClusterVersionUpgradeable" failed because of "${upgradeable!.reason}": ${upgradeable!.message}`,
        },
        now,
      );
      this.write(cluster, "ClusterVersion", next, "status");
      return false;
    }
    next.status.history = [
      {
        state: "Partial",
        startedTime: iso(now),
        completionTime: null,
        version: desired.version,
        image: desired.image ?? "",
        verified: false,
        acceptedRisks: "",
      },
      ...history,
    ];
    next.status.desired = { ...next.status.desired, version: desired.version, image: desired.image };
    conditions = setCondition(
      conditions,
      {
        type: "ReleaseAccepted",
        status: "True",
        reason: "PayloadLoaded",
        message: `Payload loaded version="${desired.version}" image="${desired.image ?? ""}" architecture="amd64"`,
      },
      now,
    );
    conditions = setCondition(
      conditions,
      { type: "Progressing", status: "True", message: `Working towards ${desired.version}: 0 of 800 done (0% complete)` },
      now,
    );
    next.status.conditions = conditions;
    this.write(cluster, "ClusterVersion", next, "status");
    return true;
  }

  /** What changes when a release is in place: the served API, the boot image stream, the operator's version. */
  private completeUpgrade(cluster: SimCluster, version: string): void {
    cluster.setVersion(version);
    const cm = this.find(cluster, "ConfigMap", "coreos-bootimages", "openshift-machine-config-operator") as Any | null;
    const build = BOOT_IMAGE_BUILDS[cluster.minor];
    if (cm && build) {
      const next = structuredClone(cm);
      try {
        const stream = JSON.parse(next.data.stream);
        const arch = stream.architectures?.x86_64;
        if (arch?.images?.aws?.regions)
          for (const [region, entry] of Object.entries(arch.images.aws.regions as Record<string, Any>))
            Object.assign(entry, { release: build, image: amiFor(build, region) });
        if (arch?.images?.gcp) Object.assign(arch.images.gcp, { release: build, name: gcpImageFor(build) });
        stream.stream = `rhcos-4.${cluster.minor}`;
        next.data.stream = JSON.stringify(stream);
      } catch {
        /* an unreadable stream stays as it is */
      }
      next.data.releaseVersion = version;
      next.data.MCOReleaseImageVersion = version;
      this.write(cluster, "ConfigMap", next);
    }
    // The operators list the gates of the release now running (status.featureGates, newest first).
    const fg = this.find(cluster, "FeatureGate", "cluster") as Any | null;
    if (fg) this.write(cluster, "FeatureGate", withVersion(structuredClone(fg), version, cluster.spec.featureSet ?? "Default"), "status");
    // The new MCO's OSImageStream controller creates the singleton where the release serves it, with the
    // built-in default of the install version (rhel-9 for every cluster installed at 4.x); an existing one keeps its default.
    const streams = this.kind(cluster, "OSImageStream");
    if (streams && !this.find(cluster, "OSImageStream", "cluster"))
      cluster.store.create(streams, undefined, osImageStreamObject(version, apiVersionOf(streams)) as KubeObject);
    const co = this.find(cluster, "ClusterOperator", "machine-config") as Any | null;
    if (co)
      this.write(
        cluster,
        "ClusterOperator",
        { ...structuredClone(co), status: { ...co.status, versions: [{ name: "operator", version }] } },
        "status",
      );
  }
}
