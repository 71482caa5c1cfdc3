import type { z } from "zod";
import { KubeError, type KindRef, type ObjectSource } from "./client";
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
): Promise<ReadResult<z.infer<T>>> {
  try {
    const raw = await client.get(ref, name, namespace);
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
  options: { namespace?: string; labelSelector?: string } = {},
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

export const readClusterVersion = (c: ObjectSource) => readOne(c, KINDS.clusterVersion, "version", S.ClusterVersionSchema);
export const readMachineConfigOperator = (c: ObjectSource) => readOne(c, KINDS.clusterOperator, "machine-config", S.ClusterOperatorSchema);
export const readInfrastructure = (c: ObjectSource) => readOne(c, KINDS.infrastructure, "cluster", S.InfrastructureSchema);
/** FeatureGate `cluster`: the feature set, and the gates enabled for each release the cluster has run. */
export const readFeatureGate = (c: ObjectSource) => readOne(c, KINDS.featureGate, "cluster", S.FeatureGateSchema);
export const readMachineConfiguration = (c: ObjectSource) =>
  readOne(c, KINDS.machineConfiguration, "cluster", S.MachineConfigurationSchema);
export const readMachineSets = (c: ObjectSource) =>
  readList(c, KINDS.machineSet, S.MachineSetSchema, { namespace: "openshift-machine-api" });
export const readBootImagesConfigMap = (c: ObjectSource) =>
  readOne(c, KINDS.configMap, "coreos-bootimages", S.ConfigMapSchema, "openshift-machine-config-operator");
export const readAdminGates = (c: ObjectSource) =>
  readOne(c, KINDS.configMap, "admin-gates", S.ConfigMapSchema, "openshift-config-managed");
export const readAdminAcks = (c: ObjectSource) => readOne(c, KINDS.configMap, "admin-acks", S.ConfigMapSchema, "openshift-config");
export const readMachineConfigPools = (c: ObjectSource) => readList(c, KINDS.machineConfigPool, S.MachineConfigPoolSchema);
export const readMachineConfigNodes = (c: ObjectSource) => readList(c, KINDS.machineConfigNode, S.MachineConfigNodeSchema);
export const readPinnedImageSets = (c: ObjectSource) => readList(c, KINDS.pinnedImageSet, S.PinnedImageSetSchema);
export const readMachineConfigs = (c: ObjectSource, labelSelector?: string) =>
  readList(c, KINDS.machineConfig, S.MachineConfigSchema, { labelSelector });
export const readNodes = (c: ObjectSource) => readList(c, KINDS.node, S.NodeSchema);
export const readMachineOSConfigs = (c: ObjectSource) => readList(c, KINDS.machineOSConfig, S.MachineOSConfigSchema);
export const readMachineOSBuilds = (c: ObjectSource) => readList(c, KINDS.machineOSBuild, S.MachineOSBuildSchema);
/** The bare-metal provisioning singleton; clusters without the baremetal capability do not serve the kind. */
export const readProvisioning = (c: ObjectSource) => readOne(c, KINDS.provisioning, "provisioning-configuration", S.ProvisioningSchema);
/**
 * The InternalReleaseImage singleton of a cluster installed without a registry. A 404 (no such
 * object) or a kind the cluster does not serve (before 4.22, or the gate off) means the cluster is
 * not registry-less: a not-available result, never an error.
 */
export const readInternalReleaseImage = (c: ObjectSource) =>
  readOne(c, KINDS.internalReleaseImage, "cluster", S.InternalReleaseImageSchema);
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
  alerts: readAlerts,
} as const;

/** Parts of ClusterObjects whose failure is part of the picture, never a failed sweep. */
export const OPTIONAL_PARTS: ReadonlySet<string> = new Set(["alerts"]);

export type ClusterObjects = { [K in keyof typeof READ_SET]: Awaited<ReturnType<(typeof READ_SET)[K]>> };

export async function readClusterObjects(c: ObjectSource): Promise<ClusterObjects> {
  const entries = await Promise.all(Object.entries(READ_SET).map(async ([key, read]) => [key, await read(c)] as const));
  return Object.fromEntries(entries) as ClusterObjects;
}

export { readAlerts, THANOS_QUERIER, type AlertsResult } from "./alertsReader";
