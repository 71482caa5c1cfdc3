import { selectorMatches, type LabelSelector } from "../domain/labelSelector";
import { poolSelecting, unmatchedAdvice } from "./unmatched";
import { previewDisruption, requiresRebuild, type Preview } from "../domain/disruption/engine";
import { MachineConfigError, parseManifest, readMachineConfig, type RenderedConfig } from "../domain/disruption/machineConfig";
import { mergeMachineConfigs, MergeError } from "../domain/disruption/merge";
import { effectivePolicies } from "../domain/disruption/policy";
import { poolStreamsAtRender, runcOnRhel10Note, type PoolStreamAtRender } from "../domain/disruption/osStreams";
import { osImageStreamFacts } from "../collector/osImageStreams";
import { RegistriesConfError } from "../domain/disruption/registries";
import { explained, NO_PREDICTION, UNKNOWN, verdictOf } from "../domain/disruption/verdict";
import { UserFacingError } from "../errors";
import { CapturedCluster } from "../kube/captured";
import { ClusterClient, type ObjectSource } from "../kube/client";
import type { DumpObject } from "../kube/dumps";
import type { ClusterCredentials } from "../kube/credentials";
import {
  readClusterVersion,
  readFeatureGate,
  readInfrastructure,
  readMachineConfigPools,
  readMachineConfigs,
  readMachineConfiguration,
  readMachineOSConfigs,
  readOSImageStream,
} from "../kube/readers";
import { decodeWithinLimits, DecodeLimitError, type Inflated } from "./decode";
import { compareFile, type ContentReader, type FileComparison } from "./redact";
import { storedPreviewInputs } from "./storedInputs";
import { MachineConfigText, MAX_PREVIEW_BODY, type ClusterPreview, type PoolPreview } from "./contract";
import type { ClientOptions } from "../kube/clientConfig";

export { MachineConfigText, MAX_PREVIEW_BODY };

/** All of one cluster's source MachineConfigs, decoded, counted per file entry. */
export const CLUSTER_DECODE_BUDGET = 64 * 1024 * 1024;
/** File contents one answer carries at most (a fleet preview shares it across its clusters). */
export const ANSWER_CONTENT_BUDGET = 8 * 1024 * 1024;

export type { FileComparison };

/** A proposed MachineConfig, read and decoded within limits, with its inflated contents. */
export type ProposedConfig = { config: RenderedConfig; inflated: Inflated };

/** How the answer is shown: to whom (which file contents they may see) and how much content it may carry. */
export type PreviewAudience = { reader: ContentReader; budget: { remaining: number } };

export const audienceOf = (reader: ContentReader): PreviewAudience => ({ reader, budget: { remaining: ANSWER_CONTENT_BUDGET } });

export type { ClusterPreview, PoolPreview };

/**
 * Reads the proposed MachineConfig (YAML or JSON text): a 400 says what is wrong, with the line; a
 * 413 names what decodes to too much (DECODE_LIMITS). Gzip contents are inflated off the event loop.
 */
export async function readProposedMachineConfig(text: string): Promise<ProposedConfig> {
  const config = parseProposedMachineConfig(text);
  const inflated: Inflated = new Map();
  await decodeWithinLimits(config, inflated, { status: 413, subject: "The MachineConfig" });
  return { config, inflated };
}

/**
 * What FeatureGate/cluster says for a preview at `release`: the feature set ("" is Default) and the
 * gates its status lists as enabled for that version; nulls when it could not be read (stored
 * inputs from before Fleetskew kept it, or no permission).
 */
export function featureGateOf(
  r: Awaited<ReturnType<typeof readFeatureGate>>,
  release: string | null,
): { featureSet: string | null; enabledFeatureGates: { version: string; enabled: string[] } | null } {
  if (r.status !== "ok") return { featureSet: null, enabledFeatureGates: null };
  const entry = release ? (r.value.status?.featureGates ?? []).find((g) => g?.version === release) : undefined;
  return {
    featureSet: r.value.spec?.featureSet || "Default",
    enabledFeatureGates:
      entry && release ? { version: release, enabled: (entry.enabled ?? []).flatMap((g) => (g?.name ? [g.name] : [])) } : null,
  };
}

/** Parses the proposed MachineConfig (YAML or JSON text); a 400 says what is wrong, with the line. */
export function parseProposedMachineConfig(text: string): RenderedConfig {
  // Read as the CLI and Kubernetes read it (YAML 1.1, so mode: 0644 is octal); never throws.
  const parsed = parseManifest(text);
  if (!parsed.ok) throw new UserFacingError(400, `The MachineConfig ${parsed.error}`);
  try {
    const mc = readMachineConfig(parsed.value, "the pasted document");
    if (!mc.name || mc.name === "the pasted document") throw new UserFacingError(400, "The MachineConfig needs metadata.name");
    return mc;
  } catch (error) {
    if (error instanceof MachineConfigError) throw new UserFacingError(400, error.message);
    throw error;
  }
}

/**
 * Previews a proposed MachineConfig on one cluster: for every pool whose machineConfigSelector
 * matches its labels, the pool's sources are merged without and with it (replacing one of the same
 * name), and the MCO's decision is applied with the cluster's own disruption policy. The cluster is
 * read live; when it cannot be, the copy its last sweep kept is used, and the answer says so.
 */
export async function previewOnCluster(
  name: string,
  credentials: ClusterCredentials,
  proposed: ProposedConfig,
  audience: PreviewAudience,
  options?: Partial<ClientOptions>,
): Promise<ClusterPreview> {
  const client = new ClusterClient(credentials, { timeoutMs: 10_000, retries: 1, retryDelayMs: 200, ...options });
  try {
    return await previewFrom(client, name, proposed, { source: "live", observedAt: new Date().toISOString(), sourceNote: null }, audience);
  } catch (error) {
    if (!(error instanceof ClusterUnreadable)) throw error;
    const stored = await storedPreviewInputs(name);
    if (!stored) throw new UserFacingError(503, `${error.message}; no earlier copy of its configuration is kept yet`);
    return previewFrom(
      new CapturedCluster(stored.objects as DumpObject[]),
      name,
      proposed,
      {
        source: "stored",
        observedAt: stored.confirmedAt,
        sourceNote: `${error.message}. This preview uses the configuration Fleetskew kept from its last sweep (${stored.confirmedAt}).`,
      },
      audience,
    );
  } finally {
    client.close();
  }
}

class ClusterUnreadable extends UserFacingError {}

const GENERATED_BY = "machineconfiguration.openshift.io/generated-by-controller-version";

/**
 * The admin MachineConfig whose spec.osImageURL the merged configuration takes, if any: the MCO's
 * `MergeMachineConfigs` skips configs a controller generated and takes the last non-empty one by
 * name (docs/openshift.md §25.1). The proposal is a person's, so it counts.
 */
function osImageOverride(
  sources: RenderedConfig[],
  proposed: RenderedConfig,
  annotationsOf: (name: string) => Record<string, string> | undefined,
): string | null {
  const after = [...sources.filter((s) => s.name !== proposed.name && !annotationsOf(s.name)?.[GENERATED_BY]), proposed];
  return (
    after
      .filter((c) => c.osImageURL)
      .map((c) => c.name)
      .sort()
      .at(-1) ?? null
  );
}

/** The release a preview follows: the newest Completed ClusterVersion history entry. */
const completedRelease = (cv: Awaited<ReturnType<typeof readClusterVersion>>) =>
  cv.status === "ok" ? ((cv.value.status?.history ?? []).find((h) => h.state === "Completed" && h.version)?.version ?? null) : null;

/**
 * Each pool's OS image stream as the cluster's render controller resolves it now, for its RHEL 10
 * runc refusal (docs/openshift.md §25.1; `poolStreamsAtRender`). Read errors only make streams unknown.
 */
function renderStreamsOf(
  pools: { metadata: { name: string }; spec?: unknown }[],
  read: {
    release: string | null;
    clusterVersion: Awaited<ReturnType<typeof readClusterVersion>>;
    gates: ReturnType<typeof featureGateOf>;
    infrastructure: Awaited<ReturnType<typeof readInfrastructure>>;
    osImageStream: Awaited<ReturnType<typeof readOSImageStream>>;
  },
  source: ClusterPreview["source"],
): Map<string, PoolStreamAtRender> {
  const cv = read.clusterVersion.status === "ok" ? read.clusterVersion.value.status : null;
  const streamOf = (p: { spec?: unknown }) => {
    const name = (p.spec as { osImageStream?: { name?: unknown } } | undefined)?.osImageStream?.name;
    return typeof name === "string" && name !== "" ? name : null;
  };
  return poolStreamsAtRender({
    release: read.release,
    clusterVersion: cv
      ? {
          history: (cv.history ?? []).map((h) => ({
            version: h.version ?? "",
            state: h.state,
            startedTime: h.startedTime ?? null,
            completionTime: h.completionTime ?? null,
          })),
          desired: cv.desired?.version ?? null,
        }
      : null,
    featureSet: read.gates.featureSet,
    enabledFeatureGates: read.gates.enabledFeatureGates,
    topology: read.infrastructure.status === "ok" ? (read.infrastructure.value.status?.controlPlaneTopology ?? null) : null,
    osImageStream: osImageStreamFacts(read.osImageStream, []),
    notServedMeans:
      source === "stored"
        ? "the configuration kept from the last sweep has none (kept before Fleetskew kept OSImageStream, or the cluster had none)"
        : "the cluster does not serve it although OSStreams is on",
    pools: pools.map((p) => ({ name: p.metadata.name, spec: streamOf(p) })),
  });
}

/**
 * One pool's configuration before and after the proposal (its sources merged, the proposal
 * replacing a source of the same name), and what the MCO does to its nodes for the difference.
 * A merge or a registries.conf the MCO would refuse is the person's to fix: a 422.
 */
function poolDisruption(
  pool: string,
  sources: RenderedConfig[],
  proposed: RenderedConfig,
  defaultOs: string,
  options: Parameters<typeof previewDisruption>[2],
): { before: RenderedConfig; after: RenderedConfig; preview: Preview } {
  let before: RenderedConfig;
  let after: RenderedConfig;
  try {
    before = mergeMachineConfigs(sources, defaultOs);
    after = mergeMachineConfigs([...sources.filter((s) => s.name !== proposed.name), proposed], defaultOs);
  } catch (error) {
    if (error instanceof MergeError) throw new UserFacingError(422, `pool ${pool}: ${error.message}`);
    throw error;
  }
  try {
    return { before, after, preview: previewDisruption(before, after, options) };
  } catch (error) {
    if (error instanceof RegistriesConfError) throw new UserFacingError(422, error.message);
    throw error;
  }
}

/**
 * The preview on any source of cluster objects: a live cluster, or objects captured from one. The
 * cluster's MachineConfigs are decoded within limits too (a 422 names one that is too large), and
 * file contents are shown as `audience` may see them (redact.ts).
 */
export async function previewFrom(
  cluster: ObjectSource,
  name: string,
  proposedInput: ProposedConfig,
  origin: Pick<ClusterPreview, "source" | "observedAt" | "sourceNote">,
  audience: PreviewAudience,
): Promise<ClusterPreview> {
  const proposed = proposedInput.config;
  // The proposal's inflated contents are shared; the cluster's are kept only for this preview.
  const inflated: Inflated = new Map(proposedInput.inflated);
  const [pools, configs, machineConfiguration, infrastructure, machineOSConfigs, clusterVersion, featureGate, osImageStream] =
    await Promise.all([
      readMachineConfigPools(cluster),
      readMachineConfigs(cluster),
      readMachineConfiguration(cluster),
      readInfrastructure(cluster),
      readMachineOSConfigs(cluster),
      readClusterVersion(cluster),
      readFeatureGate(cluster),
      readOSImageStream(cluster),
    ]);
  for (const r of [pools, configs]) {
    if (r.status === "error") throw new ClusterUnreadable(503, `cannot read ${name} now: ${r.error.message}`);
    if (r.status === "not-available") throw new UserFacingError(422, `${name} does not serve MachineConfigs or pools: ${r.reason}`);
  }
  if (pools.status !== "ok" || configs.status !== "ok") throw new Error("unreachable");
  const warnings: string[] = [];
  const release = completedRelease(clusterVersion);
  const { policies, source, legacy } = effectivePolicies(
    machineConfiguration.status === "ok" ? machineConfiguration.value : null,
    warnings,
    release,
  );
  const overrides = ((machineConfiguration.status === "ok"
    ? (machineConfiguration.value.spec as { irreconcilableValidationOverrides?: { storage?: unknown } } | undefined)
        ?.irreconcilableValidationOverrides?.storage
    : undefined) ?? []) as never[];
  const singleNode = infrastructure.status === "ok" && infrastructure.value.status?.controlPlaneTopology === "SingleReplica";
  const imageModePools = new Set(machineOSConfigs.status === "ok" ? machineOSConfigs.items.map((m) => m.spec.machineConfigPool.name) : []);
  const gates = featureGateOf(featureGate, release);
  const streams = renderStreamsOf(pools.items, { release, clusterVersion, gates, infrastructure, osImageStream }, origin.source);
  const byName = new Map(configs.items.map((c) => [c.metadata.name, c]));
  const decodedSources = new Map<string, RenderedConfig>();
  let clusterDecoded = 0;
  /** A source MachineConfig of the cluster, read and decoded within limits once per preview. */
  const sourceConfig = async (n: string): Promise<RenderedConfig> => {
    const known = decodedSources.get(n);
    if (known) return known;
    let config: RenderedConfig;
    try {
      config = readMachineConfig(byName.get(n), n);
    } catch (error) {
      if (error instanceof MachineConfigError) throw new UserFacingError(422, `${name}'s ${error.message}`);
      throw error;
    }
    clusterDecoded += await decodeWithinLimits(config, inflated, { status: 422, subject: `${name}'s MachineConfig ${n}` });
    if (clusterDecoded > CLUSTER_DECODE_BUDGET)
      throw new DecodeLimitError(
        422,
        `${name}'s MachineConfigs decode to more than ${CLUSTER_DECODE_BUDGET / 1024 / 1024} MiB in all; it is too large to preview`,
      );
    decodedSources.set(n, config);
    return config;
  };

  const results: PoolPreview[] = [];
  for (const pool of pools.items) {
    const spec = (pool.spec ?? {}) as {
      machineConfigSelector?: LabelSelector;
      configuration?: { name?: string; source?: { name: string }[] };
    };
    if (!selectorMatches(spec.machineConfigSelector, proposed.labels)) continue;
    const notes: string[] = [...warnings];
    const nodes = (pool.status as { machineCount?: number } | undefined)?.machineCount ?? 0;
    if (nodes === 0) notes.push(`pool ${pool.metadata.name} has no machines now, so no node of ${name} changes until one joins it`);
    const sourceNames = (spec.configuration?.source ?? []).map((s) => s.name);
    const missing = sourceNames.filter((n) => !byName.has(n));
    if (missing.length) notes.push(`source MachineConfigs not found on the cluster and left out: ${missing.join(", ")}`);
    const sources: RenderedConfig[] = [];
    for (const n of sourceNames.filter((n) => byName.has(n))) sources.push(await sourceConfig(n));
    if (sources.length === 0) {
      // Without the sources there is no "before" to merge the proposal into; comparing the proposal
      // with itself would claim "No disruption" for any change.
      notes.push(
        `pool ${pool.metadata.name} lists no source MachineConfigs that could be read (spec.configuration.source${sourceNames.length ? "" : " is empty: the pool may not be rendered yet"}), so its current configuration cannot be rebuilt and what this change does to its nodes is not known`,
      );
      results.push({ pool: pool.metadata.name, verdict: UNKNOWN, nodes, preview: explained(NO_PREDICTION), notes, files: [] });
      continue;
    }
    const rendered = spec.configuration?.name ? byName.get(spec.configuration.name) : undefined;
    const defaultOs = rendered ? readMachineConfig(rendered, spec.configuration!.name!).osImageURL : "";
    const { before, after, preview } = poolDisruption(pool.metadata.name, sources, proposed, defaultOs, {
      policies,
      policySource: source,
      storageOverrides: overrides,
      // FeatureGate/cluster decides whether the MCO reads them; unreadable, their presence tells (mcoRelease.ts).
      release,
      ...gates,
      firstBoot: legacy,
      inflated,
    });
    const override = osImageOverride(sources, proposed, (n) => byName.get(n)?.metadata.annotations);
    const refused = runcOnRhel10Note(pool.metadata.name, streams.get(pool.metadata.name)!, before, after, inflated, override);
    if (refused) notes.push(refused);
    if (singleNode && preview.drain) notes.push("single-node cluster: the MCO skips the drain, so workloads stop while the node updates");
    if (imageModePools.has(pool.metadata.name)) {
      notes.push(
        preview.imageMode?.newImageBuilt || requiresRebuild(before, after)
          ? "image-mode pool: a new OS image is built before nodes update"
          : "image-mode pool: the current OS image is reused; files, units and SSH keys follow the disruption policy",
      );
    }
    const files: FileComparison[] = [];
    for (const c of preview.changes.filter((c) => c.kind === "file"))
      files.push(await compareFile(c.name, { before, after, proposed }, audience.reader, inflated, audience.budget));
    results.push({ pool: pool.metadata.name, verdict: verdictOf(preview), nodes, preview: explained(preview), notes, files });
  }
  return {
    cluster: name,
    ...origin,
    policySource: source,
    pools: results,
    unmatched: results.length ? null : unmatchedAdvice(name, proposed.labels, pools.items.map(poolSelecting)),
  };
}
