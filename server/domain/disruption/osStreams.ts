import { parse } from "smol-toml";
import {
  builtinDefaultStream,
  clusterDefaultStream,
  effectivePoolStreams,
  isRhel10Stream,
  isScosVersion,
  mcoInstallVersion,
  runcCheckGate,
} from "../osImageStreams";
import type { EffectiveStream, OSImageStreamFacts, VersionHistoryEntry } from "../snapshot";
import { parseOcpVersion } from "../versions";
import { decodeContents, entries, type InflatedSources, type RenderedConfig } from "./machineConfig";

export { isRhel10Stream };

/*
 * OS image streams and RHEL 10 (docs/openshift.md §25.1), from MCO release-4.23 (d20efd9b9bdb):
 * pkg/osimagestream/streams.go, pkg/controller/common/helpers.go `DetectRuncInMachineConfig`,
 * pkg/controller/render/render_controller.go `validateNoRuncOnRHEL10FromOSImageStream`.
 */

const CRIO_DROP_IN_DIR = "/etc/crio/crio.conf.d/";

/**
 * `DetectRuncInMachineConfig`: the CRI-O drop-ins under /etc/crio/crio.conf.d/, in lexicographic
 * order of their paths, the last `crio.runtime.default_runtime` set wins; "runc" when that is runc.
 * Contents are decoded (gzip inflated) as DecodeIgnitionFileContents does. A drop-in that cannot be
 * read or parsed is the MCO's own error (it fails the render differently): returned as `error`.
 */
export function effectiveCrioRuntime(
  config: Pick<RenderedConfig, "files">,
  inflated?: InflatedSources,
): { runtime: string | null } | { error: string } {
  const dropIns = entries(config.files)
    .filter((f) => f.path.startsWith(CRIO_DROP_IN_DIR))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  let runtime: string | null = null;
  for (const f of dropIns) {
    const decoded = decodeContents(f, inflated);
    if (decoded.text === null) return { error: `CRI-O drop-in ${f.path} cannot be read: ${decoded.note ?? "unreadable contents"}` };
    if (decoded.text === "") continue;
    let doc: Record<string, unknown>;
    try {
      doc = parse(decoded.text) as Record<string, unknown>;
    } catch (error) {
      return { error: `failed to parse TOML from CRI-O drop-in ${f.path}: ${(error as Error).message.split("\n")[0]}` };
    }
    const set = ((doc.crio as Record<string, unknown> | undefined)?.runtime as Record<string, unknown> | undefined)?.default_runtime;
    if (typeof set === "string" && set !== "") runtime = set;
  }
  return { runtime };
}

/**
 * `validateNoRuncOnRHEL10FromOSImageStream`: the render controller's refusal, in its words, when a
 * pool on a RHEL 10 stream would run runc; null when it renders. `stream` is the pool's
 * spec.osImageStream.name (the API keeps the field only where the OSStreams gate is on).
 */
export function runcOnRhel10Refusal(
  pool: string,
  stream: string | null | undefined,
  config: RenderedConfig,
  inflated?: InflatedSources,
): string | null {
  if (!isRhel10Stream(stream)) return null;
  const r = effectiveCrioRuntime(config, inflated);
  if ("error" in r) return `failed to check runc in generated MachineConfig for pool ${pool}: ${r.error}`;
  if (r.runtime !== "runc") return null;
  return runcOnRhel10Message(pool);
}

/** The render controller's words for the refusal (render_controller.go, both `validateNoRuncOnRHEL10…` functions). */
export const runcOnRhel10Message = (pool: string) =>
  `MachineConfigPool ${pool} targets a RHEL 10 OS image where runc is not available. ` +
  "To unblock, migrate to crun by removing any ContainerRuntimeConfig that sets defaultRuntime to runc, " +
  'and removing any MachineConfig that sets default_runtime = "runc" in CRI-O configuration under /etc/crio/crio.conf.d/';

/** The stream the render controller resolves for one pool now, or why it does not check or cannot be told. */
export type PoolStreamAtRender =
  /** `imageCheck`: the MCO still judges an overridden OS image by its label (release-4.23 and later, whatever the gate). */
  | { check: "off"; basis: string; imageCheck: boolean }
  | { check: "on"; stream: EffectiveStream; basis: string }
  | { check: "unknown"; reason: string };

/** What decides the streams of a cluster's pools as its MCO renders them now. */
export type RenderStreamInputs = {
  /** The cluster's release (the newest Completed ClusterVersion history entry). */
  release: string | null;
  clusterVersion: { history: VersionHistoryEntry[] | null; desired: string | null } | null;
  featureSet: string | null;
  /** FeatureGate/cluster status's enabled gates for `release`, when it lists them. */
  enabledFeatureGates: { version: string; enabled: readonly string[] } | null;
  /** Infrastructure status.controlPlaneTopology ("External" on HyperShift). */
  topology: string | null;
  osImageStream: OSImageStreamFacts;
  /** Why OSImageStream is missing when it is not served (a copy kept before Fleetskew kept it, say). */
  notServedMeans: string;
  pools: { name: string; spec: string | null }[];
};

/**
 * Each pool's stream as the cluster's render controller resolves it for a change made now
 * (docs/openshift.md §25.1): `getOSImageStreamForPool` uses streams only with OSStreams on, at a
 * release that has the runc check (`runcCheckGate`); `GetEffectiveOSImageStreamName` gives the pool's
 * own spec.osImageStream.name, else for a custom pool (`IsCustomPool`) the worker pool's, else ""
 * — which `GetOSImageStreamSetByName` resolves with OSImageStream's status.defaultStream. With no
 * OSImageStream yet, the built-in default the OSImageStream controller will create it with (by the
 * install version, `GetInstallVersion`).
 */
export function poolStreamsAtRender(input: RenderStreamInputs): Map<string, PoolStreamAtRender> {
  const release = parseOcpVersion(input.release);
  const gate = runcCheckGate(release, input.featureSet, input.topology, input.enabledFeatureGates);
  if ("unknown" in gate) {
    const reason = `whether the cluster's MCO uses OS image streams is not known (${gate.unknown})`;
    return new Map(input.pools.map((p) => [p.name, { check: "unknown", reason }]));
  }
  if (!gate.on) {
    const imageCheck = !release || release.major > 4 || release.minor >= 23;
    return new Map(input.pools.map((p) => [p.name, { check: "off", basis: gate.basis, imageCheck }]));
  }
  const builtin = builtinDefaultStream(
    mcoInstallVersion(input.clusterVersion?.history, input.clusterVersion?.desired),
    parseOcpVersion(input.release),
    isScosVersion(input.release),
  );
  // Where OSStreams is on the OSImageStream kind is served (the gate's CRD): not served means it was not read.
  const fallback =
    input.osImageStream.status === "not-served"
      ? { unknown: `OSImageStream/cluster was not read: ${input.notServedMeans}` }
      : clusterDefaultStream(input.osImageStream, builtin, "status");
  const streams = effectivePoolStreams(input.pools, fallback);
  return new Map(
    input.pools.map((p): [string, PoolStreamAtRender] => {
      const stream = streams.get(p.name) ?? null;
      if (!stream)
        return [
          p.name,
          {
            check: "unknown",
            reason: `its stream hangs on the cluster's default stream, and ${"unknown" in fallback ? fallback.unknown : "that is not known"}`,
          },
        ];
      return [p.name, { check: "on", stream, basis: gate.basis }];
    }),
  );
}

const STREAM_SOURCE: Record<EffectiveStream["source"], string> = {
  pool: "its own spec.osImageStream.name",
  worker: "inherited from the worker pool, as a custom pool without a stream of its own does (GetEffectiveOSImageStreamName)",
  "cluster-default": "the cluster's default, OSImageStream/cluster status.defaultStream",
  builtin: "the MCO's built-in default for the install version, as there is no OSImageStream yet",
};

/**
 * What a preview notes of the render controller's RHEL 10 runc refusal for one pool, with its
 * configuration before and after the change: the refusal in the MCO's words, saying whether the
 * change causes it; "not known" (only where the change leaves runc, the one case it matters); or null.
 * `osImageOverride` names the admin MachineConfig whose spec.osImageURL the merge takes: then
 * `syncGeneratedMachineConfig` judges the image by its stream class label instead
 * (`validateNoRuncOnRHEL10FromOSImageURL`, runc first), which Fleetskew does not read.
 */
export function runcOnRhel10Note(
  pool: string,
  at: PoolStreamAtRender,
  before: RenderedConfig,
  after: RenderedConfig,
  inflated?: InflatedSources,
  osImageOverride?: string | null,
): string | null {
  const runcAfter = () => {
    const r = effectiveCrioRuntime(after, inflated);
    return "error" in r ? "not known" : r.runtime === "runc" ? "runc" : null;
  };
  if (osImageOverride && (at.check !== "off" || at.imageCheck)) {
    const runtime = runcAfter();
    if (!runtime) return null;
    return `pool ${pool}'s OS image is overridden by MachineConfig ${osImageOverride}, so the MCO's render controller judges the image itself (validateNoRuncOnRHEL10FromOSImageURL): with this change CRI-O's default runtime is ${runtime}, and whether it refuses to render the pool depends on the image's stream class label (io.openshift.os.streamclass), which Fleetskew does not read`;
  }
  if (at.check === "off") return null;
  if (at.check === "unknown") {
    const runtime = runcAfter();
    if (!runtime) return null;
    return `with this change CRI-O's default runtime on pool ${pool} is ${runtime}, and whether the MCO's render controller refuses to render it (a RHEL 10 pool cannot use runc) cannot be told: ${at.reason}`;
  }
  const refusedAfter = runcOnRhel10Refusal(pool, at.stream.name, after, inflated);
  if (!refusedAfter) return null;
  const already = runcOnRhel10Refusal(pool, at.stream.name, before, inflated) !== null;
  return `pool ${pool} is on OS image stream ${at.stream.name} (${STREAM_SOURCE[at.stream.source]}), and ${already ? "already before this change" : "with this change"} the MCO's render controller refuses to render it ("${refusedAfter}"): its nodes keep their current configuration until that is fixed`;
}
