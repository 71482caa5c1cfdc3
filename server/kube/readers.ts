import { createHash } from "node:crypto";
import type { z } from "zod";
import { KubeError, type KindRef, type ObjectSource, type WatchOption } from "./client";
import { readAlerts } from "./alertsReader";
import { KINDS } from "./kinds";
import * as S from "./schemas";

/**
 * Not available: the cluster does not serve the kind (an older OpenShift, an operator that is not
 * installed: `missing: "kind"`) or the object does not exist (`missing: "object"`). Most callers
 * treat both alike; a few facts hang on the difference (is there no Provisioning, or no way to tell).
 */
export type NotAvailable = { status: "not-available"; reason: string; missing: "kind" | "object" };

export type ReadResult<T> = { status: "ok"; value: T } | NotAvailable | { status: "error"; error: KubeError };

export type SkippedObject = { name: string; problem: string };
export type ListResult<T> = { status: "ok"; items: T[]; skipped: SkippedObject[] } | NotAvailable | { status: "error"; error: KubeError };

const describeIssue = (error: z.ZodError) => {
  const issue = error.issues[0]!;
  return `${issue.path.join(".") || "object"}: ${issue.message}`;
};

function failed(error: unknown): NotAvailable | { status: "error"; error: KubeError } {
  if (error instanceof KubeError && (error.kind === "not-served" || error.kind === "not-found"))
    return { status: "not-available", reason: error.message, missing: error.kind === "not-served" ? "kind" : "object" };
  if (error instanceof KubeError) return { status: "error", error };
  throw error; // a bug of ours, not the cluster's
}

export async function readOne<T extends z.ZodType>(
  client: ObjectSource,
  ref: KindRef,
  name: string,
  schema: T,
  namespace?: string,
  options?: WatchOption,
): Promise<ReadResult<z.infer<T>>> {
  try {
    const raw = await client.get(ref, name, namespace, options);
    const parsed = schema.safeParse(raw);
    if (!parsed.success)
      return {
        status: "error",
        error: new KubeError("malformed", `${ref.kind} ${name} has an unexpected shape (${describeIssue(parsed.error)})`),
      };
    return { status: "ok", value: parsed.data };
  } catch (error) {
    return failed(error);
  }
}

/** Lists a kind; objects of an unexpected shape are skipped and reported, never fatal. */
export async function readList<T extends z.ZodType>(
  client: ObjectSource,
  ref: KindRef,
  schema: T,
  options: { namespace?: string; labelSelector?: string } & WatchOption = {},
): Promise<ListResult<z.infer<T>>> {
  try {
    const raw = await client.list(ref, options);
    const items: z.infer<T>[] = [];
    const skipped: SkippedObject[] = [];
    raw.forEach((obj, i) => {
      const parsed = schema.safeParse(obj);
      if (parsed.success) items.push(parsed.data);
      else {
        const name = (obj as { metadata?: { name?: unknown } })?.metadata?.name;
        skipped.push({ name: typeof name === "string" ? name : `item ${i}`, problem: describeIssue(parsed.error) });
      }
    });
    return { status: "ok", items, skipped };
  } catch (error) {
    return failed(error);
  }
}

/*
 * `watched`: reads a collector may answer from a watch (server/kube/watchedCollection.ts): every
 * kind docs/rbac.md grants list and watch on, singletons by name (a list or watch with the field
 * selector `metadata.name=<name>` is authorized as a request for that name: k8s.io/apiserver
 * pkg/endpoints/request/requestinfo.go). Only the MachineConfigs (read when a pool's rendered
 * configuration changes) and the pods (prechecks) are not.
 */
const watched = { watch: true } as const;

export const readClusterVersion = (c: ObjectSource) =>
  readOne(c, KINDS.clusterVersion, "version", S.ClusterVersionSchema, undefined, watched);
export const readMachineConfigOperator = (c: ObjectSource) =>
  readOne(c, KINDS.clusterOperator, "machine-config", S.ClusterOperatorSchema, undefined, watched);
export const readInfrastructure = (c: ObjectSource) =>
  readOne(c, KINDS.infrastructure, "cluster", S.InfrastructureSchema, undefined, watched);
/** FeatureGate `cluster`: the feature set, and the gates enabled for each release the cluster has run. */
export const readFeatureGate = (c: ObjectSource) => readOne(c, KINDS.featureGate, "cluster", S.FeatureGateSchema, undefined, watched);
export const readMachineConfiguration = (c: ObjectSource) =>
  readOne(c, KINDS.machineConfiguration, "cluster", S.MachineConfigurationSchema, undefined, watched);
export const readMachineSets = (c: ObjectSource) =>
  readList(c, KINDS.machineSet, S.MachineSetSchema, { namespace: "openshift-machine-api", ...watched });
export const readBootImagesConfigMap = (c: ObjectSource) =>
  readOne(c, KINDS.configMap, "coreos-bootimages", S.ConfigMapSchema, "openshift-machine-config-operator", watched);
export const readAdminGates = (c: ObjectSource) =>
  readOne(c, KINDS.configMap, "admin-gates", S.ConfigMapSchema, "openshift-config-managed", watched);
export const readAdminAcks = (c: ObjectSource) => readOne(c, KINDS.configMap, "admin-acks", S.ConfigMapSchema, "openshift-config", watched);
export const readMachineConfigPools = (c: ObjectSource) => readList(c, KINDS.machineConfigPool, S.MachineConfigPoolSchema, watched);
export const readMachineConfigNodes = (c: ObjectSource) => readList(c, KINDS.machineConfigNode, S.MachineConfigNodeSchema, watched);
export const readPinnedImageSets = (c: ObjectSource) => readList(c, KINDS.pinnedImageSet, S.PinnedImageSetSchema, watched);
export const readMachineConfigs = (c: ObjectSource, labelSelector?: string) =>
  readList(c, KINDS.machineConfig, S.MachineConfigSchema, { labelSelector });
export const readNodes = (c: ObjectSource) => readList(c, KINDS.node, S.NodeSchema, watched);
export const readMachineOSConfigs = (c: ObjectSource) => readList(c, KINDS.machineOSConfig, S.MachineOSConfigSchema, watched);
export const readMachineOSBuilds = (c: ObjectSource) => readList(c, KINDS.machineOSBuild, S.MachineOSBuildSchema, watched);
/** The bare-metal provisioning singleton; clusters without the baremetal capability do not serve the kind. */
export const readProvisioning = (c: ObjectSource) =>
  readOne(c, KINDS.provisioning, "provisioning-configuration", S.ProvisioningSchema, undefined, watched);
/**
 * The InternalReleaseImage singleton of a cluster installed without a registry. A 404 (no such
 * object) or a kind the cluster does not serve (before 4.22, or the gate off) means the cluster is
 * not registry-less: a not-available result, never an error.
 */
export const readInternalReleaseImage = (c: ObjectSource) =>
  readOne(c, KINDS.internalReleaseImage, "cluster", S.InternalReleaseImageSchema, undefined, watched);
/**
 * OSImageStream `cluster` (docs/openshift.md §25.1): v1 from 4.23; a 4.22 cluster whose feature set
 * turns OSStreams on serves only v1alpha1, of the same shape. A cluster that serves neither (before
 * 4.22, or the gate off) is not-available, never an error.
 */
export async function readOSImageStream(c: ObjectSource) {
  const v1 = await readOne(c, KINDS.osImageStream, "cluster", S.OSImageStreamSchema, undefined, watched);
  if (v1.status !== "not-available" || v1.missing !== "kind") return v1;
  const alpha = await readOne(c, KINDS.osImageStreamV1alpha1, "cluster", S.OSImageStreamSchema, undefined, watched);
  return alpha.status === "not-available" && alpha.missing === "kind" ? v1 : alpha;
}

/** Every pod of the cluster: only bundle prechecks read them (which pods pull from a registry after a reboot). */
export const readPods = (c: ObjectSource) => readList(c, KINDS.pod, S.PodSchema);

/** Everything the console reads from one cluster; each part stands on its own when others fail. */
const READ_SET = {
  clusterVersion: readClusterVersion,
  machineConfigOperator: readMachineConfigOperator,
  infrastructure: readInfrastructure,
  featureGate: readFeatureGate,
  machineConfiguration: readMachineConfiguration,
  machineSets: readMachineSets,
  bootImages: readBootImagesConfigMap,
  adminGates: readAdminGates,
  adminAcks: readAdminAcks,
  pools: readMachineConfigPools,
  machineConfigNodes: readMachineConfigNodes,
  pinnedImageSets: readPinnedImageSets,
  nodes: readNodes,
  machineOSConfigs: readMachineOSConfigs,
  machineOSBuilds: readMachineOSBuilds,
  provisioning: readProvisioning,
  internalReleaseImage: readInternalReleaseImage,
  osImageStream: readOSImageStream,
  alerts: readAlerts,
} as const;

/** Parts of ClusterObjects whose failure is part of the picture, never a failed sweep. */
export const OPTIONAL_PARTS: ReadonlySet<string> = new Set(["alerts", "renderedConfigs"]);

/**
 * What the RHEL 10 runc check needs of each pool's rendered MachineConfig (docs/openshift.md §25.1):
 * its CRI-O drop-ins (`DetectRuncInMachineConfig` reads only /etc/crio/crio.conf.d/) and the source
 * MachineConfig, if any, that overrides the OS image (spec.osImageURL of a source no controller
 * generated; the last one by name wins, as `MergeMachineConfigs` takes it). Bounded: at most MAX_DROP_INS drop-ins of at most
 * MAX_DROP_IN_SOURCE characters each per pool; a pool beyond either keeps `truncated` and no drop-ins.
 */
export type RenderedConfigDigest = {
  pool: string;
  rendered: string;
  /** The rendered MachineConfig was not among the cluster's MachineConfigs. */
  missing: boolean;
  crioDropIns: { path: string; contents: { source?: string | null; compression?: string | null } | null }[];
  truncated: boolean;
  osImageOverride: { machineConfig: string; osImageURL: string } | null;
};
export type RenderedConfigsResult = { status: "ok"; value: RenderedConfigDigest[] } | { status: "unknown"; reason: string };

const MAX_DROP_INS = 64;
const MAX_DROP_IN_SOURCE = 64 * 1024;
const CRIO_DROP_IN_DIR = "/etc/crio/crio.conf.d/";
const GENERATED_BY = "machineconfiguration.openshift.io/generated-by-controller-version";

/**
 * Rendered configurations are named after a digest of their contents, so what was found in one stays
 * true for as long as the pools name the same ones: each source (the collector keeps one client per
 * cluster) lists MachineConfigs again only when a pool's rendered configuration or sources change.
 */
const renderedCache = new WeakMap<object, { key: string; value: RenderedConfigDigest[] }>();

type PoolRef = { metadata: { name: string }; spec?: Record<string, unknown> };
const configurationOf = (p: PoolRef) => (p.spec?.configuration ?? null) as { name?: unknown; source?: { name?: unknown }[] } | null;

export function renderedConfigDigests(pools: PoolRef[], configs: { metadata: { name: string }; spec?: Record<string, unknown> }[]) {
  const byName = new Map(configs.map((m) => [m.metadata.name, m]));
  return pools.flatMap((p): RenderedConfigDigest[] => {
    const configuration = configurationOf(p);
    const rendered = typeof configuration?.name === "string" ? configuration.name : "";
    if (!rendered) return [];
    const mc = byName.get(rendered);
    const files = (
      (((mc?.spec?.config as Record<string, unknown> | undefined)?.storage as Record<string, unknown> | undefined)?.files ??
        []) as unknown[]
    ).filter(
      (f): f is { path: string; contents?: { source?: string | null; compression?: string | null } | null } =>
        !!f &&
        typeof f === "object" &&
        typeof (f as { path?: unknown }).path === "string" &&
        (f as { path: string }).path.startsWith(CRIO_DROP_IN_DIR),
    );
    const truncated =
      files.length > MAX_DROP_INS ||
      files.some((f) => (typeof f.contents?.source === "string" ? f.contents.source.length : 0) > MAX_DROP_IN_SOURCE);
    const sources = (Array.isArray(configuration?.source) ? configuration.source : [])
      .map((s) => (typeof s?.name === "string" ? s.name : ""))
      .filter(Boolean)
      .sort();
    let osImageOverride: RenderedConfigDigest["osImageOverride"] = null;
    for (const name of sources) {
      const source = byName.get(name) as { metadata: { annotations?: Record<string, string> }; spec?: Record<string, unknown> } | undefined;
      // MergeMachineConfigs skips configs a controller generated: only an admin's MachineConfig overrides the OS image.
      if (source?.metadata.annotations?.[GENERATED_BY]) continue;
      const url = source?.spec?.osImageURL;
      if (typeof url === "string" && url !== "") osImageOverride = { machineConfig: name.slice(0, 253), osImageURL: url.slice(0, 512) };
    }
    return [
      {
        pool: p.metadata.name,
        rendered,
        missing: !mc,
        crioDropIns: truncated
          ? []
          : files.map((f) => ({
              path: f.path.slice(0, 4096),
              contents: f.contents ? { source: f.contents.source ?? null, compression: f.contents.compression ?? null } : null,
            })),
        truncated,
        osImageOverride,
      },
    ];
  });
}

/** Reads the pools' rendered MachineConfigs' CRI-O drop-ins (docs/rbac.md: list machineconfigs, already granted for previews). */
export async function readRenderedConfigs(c: ObjectSource, pools: ClusterObjects["pools"]): Promise<RenderedConfigsResult> {
  if (pools.status !== "ok") return { status: "unknown", reason: "the MachineConfigPools could not be read" };
  // Kept per cluster, so a digest: the pools' configurations as JSON are a kilobyte or two.
  const key = createHash("sha256")
    .update(JSON.stringify(pools.items.map((p) => [p.metadata.name, configurationOf(p as PoolRef)])))
    .digest("base64");
  const cached = renderedCache.get(c);
  if (cached?.key === key) return { status: "ok", value: cached.value };
  const configs = await readMachineConfigs(c);
  if (configs.status === "not-available") return { status: "unknown", reason: `MachineConfigs are not served: ${configs.reason}` };
  if (configs.status === "error") return { status: "unknown", reason: `MachineConfigs could not be listed: ${configs.error.message}` };
  const value = renderedConfigDigests(
    pools.items as PoolRef[],
    configs.items as { metadata: { name: string }; spec?: Record<string, unknown> }[],
  );
  // A rendered configuration not there yet (the render controller is behind) is looked for again next time.
  if (!value.some((d) => d.missing)) renderedCache.set(c, { key, value });
  return { status: "ok", value };
}

type ReadSetObjects = { [K in keyof typeof READ_SET]: Awaited<ReturnType<(typeof READ_SET)[K]>> };
export type ClusterObjects = ReadSetObjects & { renderedConfigs: RenderedConfigsResult };

/**
 * What decides the kinds a cluster serves: the release it runs and its feature set. "" while an
 * update is under way (the update adds kinds as it applies them) or when the cluster could not tell.
 */
export function releaseOf(objects: Pick<ReadSetObjects, "clusterVersion" | "featureGate">): string {
  if (objects.clusterVersion.status !== "ok") return "";
  const status = objects.clusterVersion.value.status;
  const current = status?.history?.[0];
  if (!current?.version || current.state !== "Completed" || status?.desired?.version !== current.version) return "";
  const featureSet = objects.featureGate.status === "ok" ? (objects.featureGate.value.spec?.featureSet ?? "") : "?";
  return `${current.version}/${featureSet}`;
}

async function readSet(c: ObjectSource): Promise<ReadSetObjects> {
  const entries = await Promise.all(Object.entries(READ_SET).map(async ([key, read]) => [key, await read(c)] as const));
  return Object.fromEntries(entries) as ReadSetObjects;
}

export async function readClusterObjects(c: ObjectSource): Promise<ClusterObjects> {
  let objects = await readSet(c);
  // Kinds skipped as not served under another release than the one found now are asked for after all.
  if (c.notServed && !c.notServed.confirm(releaseOf(objects))) {
    objects = await readSet(c);
    c.notServed.confirm(releaseOf(objects));
  }
  // Depends on the pools: which rendered configurations to look into.
  return { ...objects, renderedConfigs: await readRenderedConfigs(c, objects.pools) };
}

export { readAlerts, THANOS_QUERIER, type AlertsResult } from "./alertsReader";
