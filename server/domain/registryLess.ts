import type { BundleManifest } from "./bundleManifest";
import type { Precheck } from "./precheck";
import { conditionOf, type ClusterSnapshot, type Condition, type InternalReleaseImageFacts, type IriReleaseFacts } from "./snapshot";
import { parseOcpVersion } from "./versions";

/**
 * Registry-less clusters (docs/openshift.md §24): a cluster installed without a
 * registry serves its releases from the InternalReleaseImage singleton, a read-only registry on every
 * control-plane node (port 22625), and its nodes pull through ImageDigestMirrorSets that point there.
 * What it can pull is what that registry holds; today that is the bundle laid down at install, since
 * adding a bundle to a running cluster is described in the enhancement only. Pure: a snapshot in,
 * findings with their reasons out.
 */

/**
 * available: Available=True and Degraded not True, the only state the API calls safe to pull
 * (openshift/api `InternalReleaseImageStatus.Releases` godoc). degraded: Available=True with
 * Degraded=True, what the MCO's `updateDegradedCondition` writes when some node's registry is down
 * but a healthy one still serves it through api-int. unavailable: anything else.
 */
export type ReleaseServing = "available" | "degraded" | "unavailable";

export type ServedRelease = {
  name: string;
  /** The OpenShift release the bundle name carries (`ocp-release-bundle-<version>-<arch|stream>`); null when it names none. */
  version: string | null;
  image: string | null;
  /** `sha256:<hex>` of the release image; null without one, or for the MCO's all-zero placeholder. */
  digest: string | null;
  state: ReleaseServing;
  /** The condition that decided the state (Degraded when degraded, else Available), for its reason and message. */
  reason: string | null;
  message: string | null;
};

/** Something wrong with the registry: the InternalReleaseImage, one of its releases, or one node's registry. */
export type RegistryLessProblem = { source: string; reason: string | null; message: string | null };

export type RegistryLessNode = {
  node: string;
  state: "available" | "degraded" | "unknown";
  reason: string | null;
  message: string | null;
  releases: ServedRelease[];
};

export type RegistryLessState = {
  /** Every release the InternalReleaseImage lists, and each requested one it does not list yet. */
  releases: ServedRelease[];
  problems: RegistryLessProblem[];
  nodes: RegistryLessNode[];
};

/** The MachineConfigNode condition of a node's registry (openshift/api `MachineConfigNodeInternalReleaseImageDegraded`). */
export const NODE_IRI_DEGRADED = "InternalReleaseImageDegraded";

/**
 * The version in a bundle name. The API's CEL rule is `^ocp-release-bundle-[0-9]+\.[0-9]+\.[0-9]+-[A-Za-z0-9._-]+$`:
 * x.y.z, then an architecture or stream; a pre-release (`-ec.N`, `-rc.N`) stays with the version.
 */
export function bundleVersion(name: string): string | null {
  const m = /^ocp-release-bundle-(\d+\.\d+\.\d+(?:-(?:ec|rc|fc)\.\d+)?)(?:-|$)/.exec(name);
  return m ? m[1]! : null;
}

/** The MCO's placeholder digest for a release it cannot see (aggregation.go `unavailableImageDigest`). */
const PLACEHOLDER = `sha256:${"0".repeat(64)}`;

export function imageDigest(image: string | null | undefined): string | null {
  const m = typeof image === "string" ? /@(sha256:[a-f0-9]{64})$/.exec(image) : null;
  return m && m[1] !== PLACEHOLDER ? m[1]! : null;
}

function servedRelease(r: IriReleaseFacts): ServedRelease {
  const conds = Array.isArray(r.conditions) ? r.conditions : [];
  const available = conditionOf(conds, "Available");
  const degraded = conditionOf(conds, "Degraded");
  const state: ReleaseServing = available?.status === "True" ? (degraded?.status === "True" ? "degraded" : "available") : "unavailable";
  const decided = state === "degraded" ? degraded : available;
  return {
    name: r.name,
    version: bundleVersion(r.name),
    image: r.image ?? null,
    digest: imageDigest(r.image),
    state,
    reason: decided?.reason ?? null,
    message: decided?.message ?? (available ? null : "the release has no Available condition yet"),
  };
}

const isTrue = (c: Condition | null | undefined) => c?.status === "True";

/** The registry-less state of a cluster; null when it is not registry-less. */
export function registryLessState(s: Pick<ClusterSnapshot, "internalReleaseImage"> | null | undefined): RegistryLessState | null {
  const iri = s?.internalReleaseImage as InternalReleaseImageFacts | null | undefined;
  if (!iri || typeof iri !== "object") return null;
  const listed = (Array.isArray(iri.releases) ? iri.releases : []).filter((r) => typeof r?.name === "string").map(servedRelease);
  const names = new Set(listed.map((r) => r.name));
  // The controller fills status from spec (buildAggregatedReleases); a requested bundle it has not listed yet is not served.
  const pending = (Array.isArray(iri.requested) ? iri.requested : [])
    .filter((n) => typeof n === "string" && !names.has(n))
    .map((name): ServedRelease => ({
      name,
      version: bundleVersion(name),
      image: null,
      digest: null,
      state: "unavailable",
      reason: null,
      message: "requested in spec.releases, not in status.releases yet",
    }));
  const releases = [...listed, ...pending].sort((a, b) => a.name.localeCompare(b.name));

  const nodes: RegistryLessNode[] = (Array.isArray(iri.nodes) ? iri.nodes : []).map((n) => ({
    node: n.node,
    state: !n.degraded ? "unknown" : isTrue(n.degraded) ? "degraded" : "available",
    reason: n.degraded?.reason ?? null,
    message: n.degraded?.message ?? null,
    releases: (Array.isArray(n.releases) ? n.releases : []).map(servedRelease),
  }));

  const problems: RegistryLessProblem[] = [];
  const seen = new Set<string>();
  const add = (source: string, c: { reason: string | null; message: string | null }) => {
    // The controller repeats the top-level reason on every release; say each cause once.
    const key = `${c.reason}\n${c.message}`;
    if (seen.has(key)) return;
    seen.add(key);
    problems.push({ source, reason: c.reason, message: c.message });
  };
  const top = conditionOf(iri.conditions, "Degraded");
  if (isTrue(top)) add("InternalReleaseImage cluster", { reason: top!.reason, message: top!.message });
  for (const n of nodes) if (n.state === "degraded") add(`node ${n.node}`, n);
  // The top-level Degraded can stay False while a release is not available (a bundle no node has): check each.
  for (const r of releases) if (r.state !== "available") add(`release ${r.name}`, r);
  return { releases, problems, nodes };
}

/** Releases the cluster can pull from: Available (degraded ones too, which a healthy node still serves). */
export const servableReleases = (state: RegistryLessState) => state.releases.filter((r) => r.state !== "unavailable");

/**
 * The release among `state`'s that is `version` (or has `digest`, which decides when given): the best
 * served one when several bundles carry it (two architectures). `version` may name a minor ("4.23").
 */
export function releaseFor(state: RegistryLessState, version: string, digest?: string | null): ServedRelease | null {
  const rank: Record<ReleaseServing, number> = { available: 0, degraded: 1, unavailable: 2 };
  const minorOnly = /^\d+\.\d+$/.test(version.trim());
  const wanted = parseOcpVersion(version);
  const matches = state.releases.filter((r) => {
    if (digest && r.digest) return r.digest === digest;
    if (!r.version || !wanted) return false;
    if (minorOnly) {
      const v = parseOcpVersion(r.version);
      return !!v && v.major === wanted.major && v.minor === wanted.minor;
    }
    return r.version === version.trim();
  });
  return matches.sort((a, b) => rank[a.state] - rank[b.state])[0] ?? null;
}

export const describeRelease = (r: ServedRelease) => `${r.name}${r.version ? ` (${r.version})` : ""}`;
export const describeProblem = (p: RegistryLessProblem) =>
  `${p.source}: ${[p.reason, p.message].filter(Boolean).join(", ") || "no reason given"}`;

/**
 * Before a bundle's images are pinned on a registry-less cluster: its nodes pull only what the
 * InternalReleaseImage serves, so a bundle for any other release would fail on every node. Null
 * for a cluster with a registry. The bundle is matched by its release image digest, else by version.
 */
export function registryLessPrecheck(
  manifest: Pick<BundleManifest, "release">,
  iri: InternalReleaseImageFacts | null | undefined,
): Omit<Precheck, "key"> | null {
  const state = registryLessState({ internalReleaseImage: iri });
  if (!state) return null;
  const version = manifest.release.version;
  const served = servableReleases(state);
  const match = releaseFor(state, version, imageDigest(manifest.release.image));
  const base = { id: "registry-less-release", pool: null };
  const servesText = served.length ? served.map(describeRelease).join(", ") : "no release at all right now";
  if (!match || match.state === "unavailable")
    return {
      ...base,
      title: `This cluster cannot pull release ${version}`,
      status: "fail",
      detail:
        `The cluster was installed without a registry: its nodes pull images only from its InternalReleaseImage, which serves ${servesText}. ` +
        (match
          ? `${describeRelease(match)} is listed but not available (${[match.reason, match.message].filter(Boolean).join(": ") || "no reason given"}), `
          : `Release ${version} is not among them, `) +
        "so the MCO could not pull this bundle's images on any node.",
      remedy:
        "Do not apply this bundle here. An admin can make the release reachable from a mirror registry the cluster uses; OpenShift does not add a release bundle to a running registry-less cluster today.",
      items: served.map((r) => r.name),
    };
  if (match.state === "degraded")
    return {
      ...base,
      title: `Release ${version} is served, but degraded`,
      status: "warn",
      detail: `The InternalReleaseImage serves ${describeRelease(match)}, but reports it Degraded: ${[match.reason, match.message].filter(Boolean).join(": ")}. Nodes whose own registry is down pull through the others, and may fail.`,
      remedy:
        "Ask an admin to check the nodes' registries (oc get machineconfignodes, condition InternalReleaseImageDegraded) before applying.",
      items: [match.name],
    };
  return {
    ...base,
    title: `Release ${version} is served by the cluster's InternalReleaseImage`,
    status: "pass",
    detail: `The cluster has no registry; its InternalReleaseImage serves ${describeRelease(match)}, so the nodes can pull this bundle's release.`,
    remedy: null,
    items: [match.name],
  };
}
