import type { EffectiveStream, OSImageStreamFacts, VersionHistoryEntry } from "./snapshot";
import { parseOcpVersion, type Version } from "./versions";

/**
 * OS image streams (docs/openshift.md §25.1), from openshift/machine-config-operator release-4.23
 * (d20efd9b9bdb): pkg/osimagestream/streams.go, clusterversion.go, osimagestream.go and
 * pkg/controller/common/helpers.go `GetEffectiveOSImageStreamName`. Pure: the collector and the
 * readiness check both use it.
 */

export const STREAM_RHEL9 = "rhel-9";
export const STREAM_RHEL10 = "rhel-10";
export const STREAM_CENTOS10 = "centos-10";

/** `IsRHEL10Stream`. */
export const isRhel10Stream = (stream: string | null | undefined) => stream === STREAM_RHEL10 || stream === STREAM_CENTOS10;

/** OKD's versions name SCOS (`4.19.0-okd-scos.5`): `version.IsSCOS()` is true for such a build. */
export const isScosVersion = (version: string | null | undefined) => typeof version === "string" && /okd-scos/.test(version);

/**
 * `GetBuiltinDefaultStreamName`: OKD/SCOS → centos-10; else by `installVersion` when the caller
 * passes it (the OSImageStream controller does), else the build's own release: major 4 → rhel-9,
 * any other → rhel-10.
 */
export function builtinDefaultStream(installVersion: Version | null, ownRelease: Version | null, scos: boolean): string | null {
  if (scos) return STREAM_CENTOS10;
  const v = installVersion ?? ownRelease;
  if (!v) return null;
  return v.major === 4 ? STREAM_RHEL9 : STREAM_RHEL10;
}

/**
 * `GetInstallVersion`: the Completed history entries that have a completion time, the earliest by
 * completion time; with none, the desired version. Null when neither parses.
 */
export function mcoInstallVersion(history: VersionHistoryEntry[] | null | undefined, desired: string | null | undefined): Version | null {
  const completed = (history ?? []).filter((h) => h?.state === "Completed" && typeof h.completionTime === "string" && h.completionTime);
  if (!completed.length) return parseOcpVersion(desired ?? null);
  const first = [...completed].sort((a, b) => Date.parse(a.completionTime!) - Date.parse(b.completionTime!))[0]!;
  return parseOcpVersion(first.version);
}

/**
 * The stream a pool without one of its own gets: OSImageStream's default as the MCO keeps it
 * (`getDefaultStreamSet`: spec.defaultStream, else the existing status.defaultStream), else — no
 * OSImageStream yet — the built-in default. Null (with why) when OSImageStream could not be read.
 * `read: "status"` is the render controller's view of the moment: `GetOSImageStreamSetByName`
 * resolves a pool's empty stream with status.defaultStream, which the OSImageStream controller sets
 * from spec only once it has checked it (a preview of a change now uses that).
 */
export function clusterDefaultStream(
  osImageStream: OSImageStreamFacts | undefined,
  builtin: string | null,
  read: "spec" | "status" = "spec",
): { name: string; source: "cluster-default" | "builtin" } | { unknown: string } {
  if (!osImageStream) return { unknown: "OSImageStream was not read in this snapshot (it was taken before Fleetskew read it)" };
  if (osImageStream.status === "unreadable") return { unknown: `OSImageStream/cluster could not be read: ${osImageStream.reason}` };
  if (osImageStream.status === "ok") {
    const name =
      read === "status"
        ? osImageStream.statusDefault || osImageStream.specDefault
        : osImageStream.specDefault || osImageStream.statusDefault;
    if (name) return { name, source: "cluster-default" };
  }
  if (!builtin) return { unknown: "the cluster's install version is not known, so the MCO's built-in default stream cannot be told" };
  return { name: builtin, source: "builtin" };
}

/** The pool names `IsCustomPool` does not count as custom. */
const STANDARD_POOLS = new Set(["master", "worker", "arbiter"]);

/**
 * `GetEffectiveOSImageStreamName` and the default behind it: a pool's own spec.osImageStream.name,
 * else for a custom pool the worker pool's, else the cluster's default. Null for a pool whose stream
 * hangs on a default that cannot be told.
 */
export function effectivePoolStreams(
  pools: { name: string; spec: string | null }[],
  fallback: { name: string; source: "cluster-default" | "builtin" } | { unknown: string },
): Map<string, EffectiveStream | null> {
  const worker = pools.find((p) => p.name === "worker")?.spec ?? null;
  return new Map(
    pools.map((p): [string, EffectiveStream | null] => {
      if (p.spec) return [p.name, { name: p.spec, source: "pool" }];
      if (!STANDARD_POOLS.has(p.name) && worker) return [p.name, { name: worker, source: "worker" }];
      return [p.name, "unknown" in fallback ? null : { name: fallback.name, source: fallback.source }];
    }),
  );
}

/** The gate's name in openshift/api features/features.go and in FeatureGate status. */
export const OSSTREAMS_GATE = "OSStreams";

export type RuncCheckGate = { on: boolean; basis: string } | { unknown: string };

/**
 * Whether the MCO of `release` refuses RHEL 10 pools that use runc (docs/openshift.md §25, §25.1):
 * only release-4.23 and later have the check (release-4.22 at 9027c94cde45 has neither
 * `validateNoRuncOnRHEL10…` function), and it runs only with OSStreams on (`getOSImageStreamForPool`
 * → `osimagestream.IsFeatureEnabled`). FeatureGate/cluster's status entry for `release`, when the
 * caller has one (the cluster's own version), is what the MCO's gate handler answers from; else the
 * feature set by openshift/api release-4.23 features.go: on for self-managed clusters in Default,
 * TechPreviewNoUpgrade, DevPreviewNoUpgrade and OKD, for HyperShift (`External` control plane) only
 * in the two previews; from 5.0 (openshift/api release-5.0) for HyperShift as for every other cluster;
 * CustomNoUpgrade names its gates itself.
 */
export function runcCheckGate(
  release: Version | null,
  featureSet: string | null | undefined,
  topology: string | null | undefined,
  enabledAtRelease?: { version: string; enabled: readonly string[] } | null,
): RuncCheckGate {
  if (!release) return { unknown: "the cluster's release is not known" };
  if (release.major === 4 && release.minor < 23)
    return {
      on: false,
      basis: `the ${release.major}.${release.minor} MCO has no such check (release-4.22 at 9027c94cde45 has no validateNoRuncOnRHEL10 function)`,
    };
  if (enabledAtRelease) {
    const on = enabledAtRelease.enabled.includes(OSSTREAMS_GATE);
    return {
      on,
      basis: `FeatureGate/cluster status lists ${OSSTREAMS_GATE} as ${on ? "enabled" : "not enabled"} at ${enabledAtRelease.version}`,
    };
  }
  if (featureSet === "CustomNoUpgrade")
    return { unknown: "the cluster's feature set is CustomNoUpgrade, whose OSStreams gate at the target Fleetskew cannot tell" };
  const preview = featureSet === "TechPreviewNoUpgrade" || featureSet === "DevPreviewNoUpgrade";
  // openshift/api release-5.0 (e543cc5080e8) and master (2a3d73913b5a) drop the cluster-profile split:
  // OSStreams is on in Default, OKD and the previews for HyperShift too.
  if (release.major >= 5)
    return {
      on: true,
      basis: `from 5.0 OSStreams is on for every cluster, HyperShift included, in every feature set but CustomNoUpgrade (openshift/api release-5.0 at e543cc5080e8)`,
    };
  if (topology === "External") {
    if (!featureSet)
      return {
        unknown:
          "on HyperShift OSStreams is on only in TechPreviewNoUpgrade and DevPreviewNoUpgrade, and this cluster's FeatureGate was not read",
      };
    return preview
      ? { on: true, basis: `OSStreams is on for HyperShift in ${featureSet}` }
      : { on: false, basis: `OSStreams is off for HyperShift in the ${featureSet} feature set` };
  }
  return {
    on: true,
    basis: "from 4.23 OSStreams is on for self-managed clusters in every feature set but CustomNoUpgrade (openshift/api release-4.23)",
  };
}
