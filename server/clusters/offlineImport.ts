import { z } from "zod";
import { auditActor, type Actor } from "../auth/actor";
import { digest, FleetCatalog } from "../collector/evaluate";
import { UserFacingError } from "../errors";
import { plainIssues } from "../http/issues";
import { skewLimits } from "../fleet/fleet";
import { invalidateFleetList } from "../fleet/fleetList";
import { CapturedCluster } from "../kube/captured";
import { DumpParseError, parseDumpFile, type DumpObject } from "../kube/dumps";
import { OPTIONAL_PARTS, readClusterObjects, type ClusterObjects } from "../kube/readers";
import { ClusterNameTakenError } from "../store/clusters";
import { loadCatalog } from "../store/history";
import { OfflineCaptureRefused, recordOfflineCapture } from "../store/offline";
import { dumpFilesOf, UPLOAD_LIMITS, type UploadedFile, type UploadLimits } from "./dumpUpload";
import { ClusterNameSchema, Labels, type OfflineImportResult } from "./contract";

/**
 * Offline import: a cluster Fleetskew cannot reach (an air-gapped site) is brought in from its
 * object dumps. The dumps are read through the same readers as a live cluster (over a
 * CapturedCluster), digested like a sweep at the capture time, and stored as an offline cluster.
 */

const blankToUndefined = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);

const CapturedAt = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()], {
    error: "must be an ISO 8601 time with a time zone, e.g. 2026-01-15T10:00:00Z",
  })
  .transform((text) => new Date(text));

export const OfflineImportFieldsSchema = z.object({
  name: ClusterNameSchema,
  displayName: z.preprocess(blankToUndefined, z.string().trim().max(120, "Display name must be at most 120 characters").optional()),
  labels: z.preprocess(blankToUndefined, Labels.optional()),
  capturedAt: z.preprocess(blankToUndefined, CapturedAt.optional()),
});

/** As a form sends it: text fields (blank means not given) and the uploaded files. */
export type OfflineImportInput = {
  name: string;
  displayName?: string;
  /** "key=value, key=value"; on a later capture, labels not given stay as they are. */
  labels?: string;
  /** ISO 8601; the time of the upload when not given. */
  capturedAt?: string;
  files: UploadedFile[];
};

export type { OfflineImportResult };

/** Clocks differ a little between the site and here; more than this in the future is a mistake. */
const FUTURE_TOLERANCE_MS = 5 * 60_000;
const MAX_WARNINGS = 50;

/** How each part of the read set is named in messages; parts added later are named by their key. */
const PART_NAMES: Partial<Record<keyof ClusterObjects, string>> = {
  clusterVersion: "ClusterVersion version",
  machineConfigOperator: "ClusterOperator machine-config",
  infrastructure: "Infrastructure cluster",
  featureGate: "FeatureGate cluster",
  machineConfiguration: "MachineConfiguration cluster",
  machineSets: "MachineSets",
  bootImages: "ConfigMap openshift-machine-config-operator/coreos-bootimages",
  adminGates: "ConfigMap openshift-config-managed/admin-gates",
  adminAcks: "ConfigMap openshift-config/admin-acks",
  pools: "MachineConfigPools",
  machineConfigNodes: "MachineConfigNodes",
  pinnedImageSets: "PinnedImageSets",
  nodes: "Nodes",
  machineOSConfigs: "MachineOSConfigs",
  machineOSBuilds: "MachineOSBuilds",
  provisioning: "Provisioning provisioning-configuration",
  internalReleaseImage: "InternalReleaseImage cluster",
  osImageStream: "OSImageStream cluster",
};
const partName = (key: string) => PART_NAMES[key as keyof ClusterObjects] ?? key;

/** Parts that exist only on one platform: their absence is worth a warning only there, or when the platform is unknown. */
const PLATFORM_PARTS: Partial<Record<keyof ClusterObjects, string>> = { provisioning: "BareMetal" };
/** Parts most clusters do not have: only a cluster installed without a registry has an InternalReleaseImage. */
const RARE_PARTS: ReadonlySet<keyof ClusterObjects> = new Set(["internalReleaseImage", "osImageStream"]);

function parseFields(input: OfflineImportInput) {
  const parsed = OfflineImportFieldsSchema.safeParse(input);
  if (!parsed.success) {
    const issues = plainIssues(parsed.error);
    throw new UserFacingError(400, issues[0]!.error, {}, { field: issues[0]!.field, issues });
  }
  return parsed.data;
}

/** What the read found: how many objects it used, and what a person should know about the rest. */
function describeRead(objects: ClusterObjects): { read: number; warnings: string[]; missing: string[] } {
  let read = 0;
  const warnings: string[] = [];
  const missing: string[] = [];
  const infra = objects.infrastructure.status === "ok" ? objects.infrastructure.value.status : undefined;
  const platform = infra?.platformStatus?.type ?? infra?.platform;
  for (const [key, result] of Object.entries(objects) as [string, ClusterObjects[keyof ClusterObjects]][]) {
    const onlyOn = PLATFORM_PARTS[key as keyof ClusterObjects];
    // Firing alerts come from a live querier, never from a dump: the snapshot records them as not read.
    if (OPTIONAL_PARTS.has(key) || result.status === "unknown") continue;
    if (result.status === "not-available") {
      if (RARE_PARTS.has(key as keyof ClusterObjects)) continue;
      if (!onlyOn || !platform || platform === onlyOn) missing.push(partName(key));
    } else if (result.status === "error") warnings.push(`${partName(key)} left out: ${result.error.message}`);
    else if ("items" in result) {
      read += result.items.length;
      for (const s of result.skipped) warnings.push(`${partName(key)}: ${s.name} skipped, it has an unexpected shape (${s.problem})`);
    } else read += 1;
  }
  return { read, warnings, missing };
}

function apiUrlOf(objects: ClusterObjects): string | null {
  if (objects.infrastructure.status !== "ok") return null;
  const url = (objects.infrastructure.value.status as { apiServerURL?: unknown } | undefined)?.apiServerURL;
  return typeof url === "string" && /^https?:\/\//.test(url) ? url : null;
}

/**
 * Imports object dumps as a capture of an offline cluster. Bad input of any kind is a
 * UserFacingError (4xx) that names the problem, raised before anything is written; what is
 * written (cluster, state, history, catalog, audit event) is written in one transaction.
 */
export async function importOfflineCluster(
  input: OfflineImportInput,
  actor: Actor,
  options: { now?: Date; limits?: UploadLimits } = {},
): Promise<OfflineImportResult> {
  const now = options.now ?? new Date();
  const fields = parseFields(input);
  if (fields.capturedAt && fields.capturedAt.getTime() > now.getTime() + FUTURE_TOLERANCE_MS)
    throw new UserFacingError(400, `The capture time ${fields.capturedAt.toISOString()} is in the future`, {}, { field: "capturedAt" });
  const capturedAt = fields.capturedAt ?? now;

  const limits = options.limits ?? UPLOAD_LIMITS;
  const upload = await dumpFilesOf(input.files, limits);
  const warnings = [...upload.warnings];
  // Warnings past what is shown are only counted, so a file of many odd documents cannot fill memory with them.
  let unkeptWarnings = 0;
  const parsed: DumpObject[] = [];
  for (const file of upload.files) {
    try {
      const { objects, warnings: fileWarnings } = parseDumpFile(file.name, file.text);
      if (parsed.length + objects.length > limits.maxObjects)
        throw new UserFacingError(
          413,
          `The upload holds more than ${limits.maxObjects} objects; import the cluster-scoped objects and openshift-machine-* namespaces only`,
        );
      for (const o of objects) parsed.push(o);
      const room = Math.max(0, MAX_WARNINGS - warnings.length);
      warnings.push(...fileWarnings.slice(0, room));
      unkeptWarnings += Math.max(0, fileWarnings.length - room);
    } catch (error) {
      if (error instanceof DumpParseError) throw new UserFacingError(400, error.message);
      throw error;
    }
  }
  if (parsed.length === 0)
    throw new UserFacingError(400, "The upload holds no Kubernetes objects; each file should be the output of oc get -o json or -o yaml");

  const source = new CapturedCluster(parsed);
  const objects = await readClusterObjects(source);
  const cv = objects.clusterVersion;
  if (cv.status === "not-available")
    throw new UserFacingError(
      422,
      "The upload has no ClusterVersion, so it is not the dump of an OpenShift cluster; include the output of oc get clusterversion version -o yaml",
    );
  if (cv.status === "error") throw new UserFacingError(422, `The upload's ClusterVersion cannot be read: ${cv.error.message}`);

  const catalog = new FleetCatalog();
  catalog.add(await loadCatalog());
  const d = digest(objects, catalog, await skewLimits(), capturedAt);
  if (!d.summary.version)
    throw new UserFacingError(
      422,
      "The upload's ClusterVersion has no version in status.history or status.desired; dump it from a running cluster",
    );

  const read = describeRead(objects);
  if (source.duplicates.length)
    warnings.push(
      `In the upload more than once (the last one read is used): ${source.duplicates.slice(0, 20).join(", ")}${source.duplicates.length > 20 ? `, and ${source.duplicates.length - 20} more` : ""}`,
    );
  warnings.push(...read.warnings);
  if (read.missing.length) warnings.push(`Not in the upload, so shown as not available: ${read.missing.join(", ")}`);
  if (!fields.capturedAt)
    warnings.unshift(`No capture time was given; the time of the upload (${capturedAt.toISOString()}) is used as the capture time`);
  const more = Math.max(0, warnings.length - MAX_WARNINGS) + unkeptWarnings;
  const shown = more > 0 ? [...warnings.slice(0, MAX_WARNINGS), `… and ${more} more`] : warnings;

  try {
    const stored = await recordOfflineCapture(
      {
        name: fields.name,
        displayName: fields.displayName,
        labels: fields.labels,
        apiUrl: apiUrlOf(objects),
        platform: d.snapshot.platform,
        capturedAt,
        snapshot: d.snapshot,
        snapshotHash: d.snapshotHash,
        facts: d.facts,
        summary: d.summary,
        backfill: d.backfill(),
        catalog: d.snapshot.streamImages,
      },
      {
        ...auditActor(actor),
        details: { files: upload.files.length, objects: parsed.length, read: read.read, warnings: warnings.length + unkeptWarnings },
      },
    );
    invalidateFleetList();
    return {
      cluster: fields.name,
      created: stored.cluster === "created",
      version: d.summary.version,
      skewStatus: d.summary.skewStatus,
      skewSummary: d.summary.skewSummary,
      oldestBootImage: d.summary.oldestBootImage,
      capturedAt: capturedAt.toISOString(),
      capturedAtSource: fields.capturedAt ? "given" : "upload",
      previousCaptureAt: stored.previousCaptureAt?.toISOString() ?? null,
      historyRows: stored.historyRows,
      counts: { files: upload.files.length, objects: parsed.length, read: read.read },
      warnings: shown,
    };
  } catch (error) {
    if (error instanceof OfflineCaptureRefused || error instanceof ClusterNameTakenError) throw new UserFacingError(409, error.message);
    throw error;
  }
}

/** The fields and files of a multipart import request, as importOfflineCluster takes them. */
export async function offlineImportFromForm(form: FormData): Promise<OfflineImportInput> {
  const text = (field: string) => {
    const value = form.get(field);
    if (value !== null && typeof value !== "string") throw new UserFacingError(400, `${field} must be a form field, not a file`);
    return value ?? undefined;
  };
  const entries = [...form.getAll("files"), ...form.getAll("files[]")];
  const files: UploadedFile[] = [];
  for (const entry of entries) {
    if (typeof entry === "string") throw new UserFacingError(400, "files must be file uploads, not text fields");
    files.push({ name: entry.name || "upload", bytes: new Uint8Array(await entry.arrayBuffer()) });
  }
  return { name: text("name") ?? "", displayName: text("displayName"), labels: text("labels"), capturedAt: text("capturedAt"), files };
}
