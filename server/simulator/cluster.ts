import { randomUUID } from "node:crypto";
import type { SimEc2 } from "./ec2";
import { featureGateObject, type SimFeatureSet } from "./featureGate";
import { osImageStreamObject } from "./osImageStream";
import { apiVersionOf, KINDS, kindsServedAt, type KindInfo } from "./kinds";
import type { IngressAuthority } from "./ingress";
import { ALERT_PRESETS, ingressCaConfigMap, querierRoute, type MonitoringSpec } from "./monitoring";
import { withAlertRisks } from "./cvoAlertRisks";
import { ObjectStore, type Admit, type KubeObject, type WatchEvent } from "./objectStore";
import { admit, coerce, schemaFor } from "./openapi/admission";
import type { SchemaTarget } from "./openapi/schemas";

/** Ways a simulated cluster misbehaves, for testing that one bad cluster never breaks the others. */
export type Faults = {
  /** Added to every response. */
  latencyMs?: number;
  /** Requests are accepted but never answered (the client's timeout decides). */
  timeout?: boolean;
  /** Every Nth request (1 = all) answers 503 (or `errorStatus`). */
  errorEvery?: number;
  errorStatus?: number;
  /** Every Nth request answers 200 with a truncated JSON body. */
  malformedEvery?: number;
  /** Alternates healthy and unreachable (connection reset) every `periodMs` of simulated time. */
  flapPeriodMs?: number;
  /**
   * Every Nth patch that names a resourceVersion finds the object changed by another writer just
   * before it (an annotation), so its precondition fails with the API server's 409 Conflict.
   */
  concurrentWriteEvery?: number;
  /** Latency, timeouts and errors apply to writes only (create, patch, update, delete); reads answer at once. */
  writesOnly?: boolean;
  /**
   * A hostile cluster's long message: a GET of ClusterVersion answers with its Progressing
   * condition's message (added when absent) padded to this many bytes. The stored object is unchanged.
   */
  progressingMessageBytes?: number;
  /** Lists of these resources (plurals, e.g. "machineconfigpools") answer 500 InternalError. */
  failingLists?: string[];
};

export type UpgradeTrouble = "fails" | "hangs";

export type Permission = { verb: string; resource: string; group: string };

export type ClusterSpec = {
  name: string;
  /** Full OpenShift version, e.g. "4.19.10"; decides which kinds and fields are served. */
  ocpVersion: string;
  /** Token that may do everything. */
  token: string;
  /** Token that may read but not write (403 on writes). */
  readOnlyToken: string;
  /** Verb/resource pairs every token is refused (to simulate missing RBAC). */
  forbidden?: Permission[];
  faults?: Faults;
  /**
   * How this cluster's next upgrade goes wrong, as the CVO reports it: `fails` halfway with the
   * machine-config operator degraded (Failing=True); `hangs` at 97%, waiting on machine-config, and
   * never completes.
   */
  upgradeTrouble?: UpgradeTrouble;
  /** The cluster's Thanos querier behind the service proxy: which alerts fire, and how it answers (./monitoring.ts). */
  monitoring?: MonitoringSpec;
  /** Feature set; TechPreviewNoUpgrade serves fields earlier (docs/openshift.md §14). */
  featureSet?: SimFeatureSet;
  /**
   * The simulated MCO's pinned-image timing: the daemon's prefetch timeout (default: the release's,
   * 120 s before 4.22 and 300 s from it) and how long one image takes on one prefetch worker.
   * Simulated seconds; a scenario shortens them so tests need not wait minutes.
   */
  mco?: { prefetchTimeoutSeconds?: number; pullSecondsPerImage?: number };
  /**
   * What the simulated cloud's EC2 answers the MCO from release-4.23 (./ec2.ts): AMI owners,
   * marketplace AMIs per region, undescribable AMIs, API or credentials failures. Omitted: published
   * RHCOS AMIs are Red Hat's, any other the cluster's own copy, and EC2 answers.
   */
  ec2?: SimEc2;
  /** The site's mirror registry: image → its layers (digest, compressed size), as `podman manifest inspect` lists them. */
  mirror?: Record<string, { digest: string; size: number }[]>;
  /** The cluster's objects, produced on first use so that thousands of clusters cost little until read. */
  objects: () => KubeObject[];
};

export type SimEnv = { now: () => Date; uid: () => string };

export const defaultEnv = (): SimEnv => ({ now: () => new Date(), uid: randomUUID });

export function parseMinor(ocpVersion: string): number {
  const m = /^4\.(\d+)\./.exec(ocpVersion);
  return m ? Number(m[1]) : 0;
}

export class SimCluster {
  private storeInstance: ObjectStore | undefined;
  /** Open watches, kept by the cluster so that they outlive a rebuild of its unchanged store (evict). */
  private readonly watchers = new Set<(event: WatchEvent) => void>();
  kinds: KindInfo[];
  minor: number;
  requestCount = 0;
  /** Patches with a resourceVersion precondition (for the concurrentWriteEvery fault). */
  conditionalPatchCount = 0;
  /** Write requests received, by "verb Kind" ("patch ClusterVersion"): what tests count to prove a write was never repeated. */
  readonly writeRequests = new Map<string, number>();
  /** Every API request received, by HTTP method, answered or refused by a fault mode alike. */
  readonly requestsByMethod = new Map<string, number>();

  constructor(
    readonly spec: ClusterSpec,
    private readonly env: SimEnv,
    private readonly onMaterialize: (cluster: SimCluster) => void = () => undefined,
    /** The fleet's ingress CA, once a server serves it: every cluster then has the querier's Route and the published CA. */
    private readonly ingress: () => IngressAuthority | undefined = () => undefined,
  ) {
    this.minor = parseMinor(spec.ocpVersion);
    this.kinds = kindsServedAt(this.minor, spec.featureSet);
  }

  /**
   * After an upgrade: the API now serves what the new release serves, and holds objects to its
   * schemas; stored objects read back pruned and defaulted by them.
   */
  setVersion(ocpVersion: string): void {
    this.spec.ocpVersion = ocpVersion;
    this.minor = parseMinor(ocpVersion);
    this.kinds = kindsServedAt(this.minor, this.spec.featureSet);
    const store = this.storeInstance;
    if (store) for (const info of this.kinds) store.reread(info, (obj) => this.prune(info, obj));
  }

  /** Which CRD schemas this cluster's API holds objects to (openapi/schemas.ts): its release line and feature set. */
  get schemaTarget(): SchemaTarget {
    return { minor: this.minor, featureSet: this.spec.featureSet ?? "Default" };
  }

  /** Refuses a write that breaks its kind's schema on this cluster's release (a 422). */
  readonly admit: Admit = (info, next, old) => admit(info, next, old, this.schemaTarget);

  get materialized(): boolean {
    return this.storeInstance !== undefined;
  }

  get name() {
    return this.spec.name;
  }

  /**
   * Whether the MachineConfiguration API has the boot-image skew fields: whether the release's CRD
   * schema has them (Default from 4.22, TechPreviewNoUpgrade and DevPreviewNoUpgrade from 4.21).
   */
  get servesSkewEnforcement(): boolean {
    const mc = KINDS.find((k) => k.kind === "MachineConfiguration")!;
    const spec = schemaFor(mc, this.schemaTarget)?.properties?.spec;
    return !!spec?.properties?.bootImageSkewEnforcement;
  }

  get store(): ObjectStore {
    if (!this.storeInstance) {
      const store = new ObjectStore({ ...this.env, prune: (info, obj) => this.prune(info, obj), watchers: this.watchers });
      const objects = this.spec.objects();
      // Every OpenShift cluster has FeatureGate/cluster; a capture without one gets the spec's feature set.
      const withFeatureGate = objects.some((o) => o.kind === "FeatureGate")
        ? objects
        : [...objects, featureGateObject(this.spec.ocpVersion, this.spec.featureSet) as KubeObject];
      // Where the cluster serves OSImageStream, the MCO has written its singleton (docs/openshift.md §25.1).
      const streamKind = this.kinds.find((k) => k.kind === "OSImageStream");
      if (streamKind && !withFeatureGate.some((o) => o.kind === "OSImageStream"))
        withFeatureGate.push(osImageStreamObject(this.spec.ocpVersion, apiVersionOf(streamKind)) as KubeObject);
      for (const seeded of [...withFeatureGate, ...this.monitoringObjects(objects)]) {
        const obj = seeded.kind === "ClusterVersion" ? this.withCvoRisks(seeded) : seeded;
        const info = this.kindFor(obj);
        if (info) {
          this.prune(info, obj);
          store.seed(info, obj);
        }
      }
      store.sealSeed();
      this.storeInstance = store;
    }
    this.onMaterialize(this);
    return this.storeInstance;
  }

  /**
   * ClusterVersion as a CVO with ClusterUpdateAcceptRisks on writes it (./cvoAlertRisks.ts): from 4.22,
   * in TechPreviewNoUpgrade and DevPreviewNoUpgrade, the firing alerts become risks of every update.
   */
  private withCvoRisks(cv: KubeObject): KubeObject {
    const preview = this.spec.featureSet === "TechPreviewNoUpgrade" || this.spec.featureSet === "DevPreviewNoUpgrade";
    const major = Number(/^(\d+)\./.exec(this.spec.ocpVersion)?.[1] ?? 4);
    // A cluster without a querier gives its CVO no alerts either.
    const querier = this.spec.monitoring?.querier;
    if (!preview || (major === 4 && this.minor < 22) || querier === "absent" || querier === "unavailable") return cv;
    const chosen = this.spec.monitoring?.alerts ?? "quiet";
    return withAlertRisks(cv, typeof chosen === "string" ? ALERT_PRESETS[chosen] : chosen, "2026-01-01T00:00:00Z");
  }

  /** Cluster monitoring's Route and the ingress CA, unless the capture has its own. */
  private monitoringObjects(objects: KubeObject[]): KubeObject[] {
    const ingress = this.ingress();
    if (!ingress) return [];
    const has = (kind: string, name: string) => objects.some((o) => o.kind === kind && o.metadata.name === name);
    return [
      ...(has("Route", "thanos-querier") ? [] : [querierRoute(this.name, ingress.domain) as KubeObject]),
      ...(has("ConfigMap", "default-ingress-cert") ? [] : [ingressCaConfigMap(ingress.ca.cert) as KubeObject]),
    ];
  }

  /** Drops the objects if they can be rebuilt identically from the spec; returns whether it did. */
  evict(): boolean {
    if (!this.storeInstance?.disposable) return false;
    this.storeInstance = undefined;
    return true;
  }

  /** The served kind for an object's apiVersion/kind, or undefined when this cluster does not serve it. */
  kindFor(obj: { apiVersion?: string; kind?: string }): KindInfo | undefined {
    return this.kinds.find((k) => (k.group ? `${k.group}/${k.version}` : k.version) === obj.apiVersion && k.kind === obj.kind);
  }

  /**
   * As the API server decodes a custom resource: fields the release's CRD schema does not know are
   * dropped (returned as warnings), its defaults filled in (openapi/structural.ts).
   */
  private prune(info: KindInfo, obj: KubeObject): string[] {
    // Pools' osImageStream fields exist only where the OSStreams gate is on; the rest follows the release's CRD schema.
    const streams = info.kind === "MachineConfigPool" ? this.pruneOsImageStream(obj) : [];
    return [...streams, ...coerce(info, obj, this.schemaTarget)];
  }

  /** OSStreams on: the cluster serves OSImageStream (kinds.ts), as the gate's CRDs go together. */
  get servesOsStreams(): boolean {
    return this.kinds.some((k) => k.kind === "OSImageStream");
  }

  /** MachineConfigPool spec/status.osImageStream exist only where OSStreams is on (openshift/api `+openshift:enable:FeatureGate=OSStreams`). */
  private pruneOsImageStream(obj: KubeObject): string[] {
    if (this.servesOsStreams) return [];
    const warnings: string[] = [];
    for (const part of ["spec", "status"] as const) {
      const o = obj[part] as Record<string, unknown> | undefined;
      if (o && "osImageStream" in o) {
        delete o.osImageStream;
        warnings.push(`unknown field "${part}.osImageStream"`);
      }
    }
    return warnings;
  }

  isForbidden(verb: string, info: KindInfo): boolean {
    return (this.spec.forbidden ?? []).some((p) => p.verb === verb && p.resource === info.plural && p.group === info.group);
  }
}

/** All simulated clusters served by one simulator process. */
export class Fleet {
  private readonly clusters = new Map<string, SimCluster>();
  /** Materialized clusters, least recently used first; untouched ones beyond the limit are dropped. */
  private readonly recent = new Map<SimCluster, true>();
  /** Called after every successful write through the API (the reconciler listens here). */
  onWrite?: (cluster: SimCluster) => void;
  /** The clusters' ingress (./ingress.ts), set by the server that serves their Routes. */
  ingress?: IngressAuthority;

  constructor(
    readonly env: SimEnv = defaultEnv(),
    /** How many clusters may stay materialized; a large fleet generates the others on demand. */
    readonly maxMaterialized = 2000,
  ) {}

  private touched(cluster: SimCluster): void {
    this.recent.delete(cluster);
    this.recent.set(cluster, true);
    if (this.recent.size <= this.maxMaterialized) return;
    for (const candidate of this.recent.keys()) {
      if (this.recent.size <= this.maxMaterialized) break;
      if (candidate !== cluster && candidate.evict()) this.recent.delete(candidate);
    }
  }

  add(spec: ClusterSpec): SimCluster {
    if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(spec.name)) throw new Error(`cluster name "${spec.name}" must be a DNS label`);
    if (this.clusters.has(spec.name)) throw new Error(`cluster "${spec.name}" is already served`);
    const cluster = new SimCluster(
      spec,
      this.env,
      (c) => this.touched(c),
      () => this.ingress,
    );
    this.clusters.set(spec.name, cluster);
    return cluster;
  }

  get(name: string): SimCluster | undefined {
    return this.clusters.get(name);
  }

  list(): SimCluster[] {
    return [...this.clusters.values()];
  }

  setUpgradeTrouble(name: string, trouble: UpgradeTrouble | undefined): void {
    const cluster = this.clusters.get(name);
    if (!cluster) throw new Error(`no simulated cluster named ${name}`);
    cluster.spec.upgradeTrouble = trouble;
  }

  /** Which alerts the cluster's Thanos querier reports, and how it answers (./monitoring.ts). */
  setMonitoring(name: string, monitoring: MonitoringSpec | undefined): void {
    const cluster = this.clusters.get(name);
    if (!cluster) throw new Error(`no simulated cluster named ${name}`);
    cluster.spec.monitoring = monitoring;
  }

  setFaults(name: string, faults: Faults | undefined): void {
    const cluster = this.clusters.get(name);
    if (!cluster) throw new Error(`no simulated cluster named ${name}`);
    cluster.spec.faults = faults;
  }
}

export { KINDS };
