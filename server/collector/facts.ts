import { createHash } from "node:crypto";
import { clusterSkew, type ClusterSkew } from "../domain/clusterSkew";
import type { Readiness } from "../domain/readiness";
import { registryLessState } from "../domain/registryLess";
import { installVersion, MCO_SKEW_LIMITS, type SkewLimitEntry } from "../domain/skew";
import { conditionOf, type ClusterSnapshot, type MachineSetFacts } from "../domain/snapshot";
import { bootsWindows } from "../domain/bootImageInputs";

/**
 * The facts Fleetskew keeps history of, derived from a snapshot. Each is small and changes only
 * when something a person cares about changes (no timestamps, no replica counts), so that steady
 * clusters write nothing.
 */
export type FactName =
  "version" | "bootImage" | "enforcement" | "upgradeable" | "pool" | "pinned" | "readiness" | "skew" | "internalReleaseImage";

export type Fact = { fact: FactName; key: string; value: Record<string, unknown> };

export type VersionFact = { current: string | null; desired: string | null; updating: boolean };
export type BootImageFact = {
  display: string;
  ocpVersion: string | null;
  rhcosBuild: string | null;
  provenance: string;
  mco: "update" | "skip" | "exclude" | "error";
  reason: string;
  /** A Windows MachineSet: kept in its history, left out of the oldest boot image. */
  windows?: true;
};
const bootImageFact = (m: MachineSetFacts, reason: string): BootImageFact => ({
  display: m.display,
  ocpVersion: m.ocpVersion,
  rhcosBuild: m.rhcosBuild,
  provenance: m.provenance,
  mco: m.mco.action,
  reason,
  ...(bootsWindows(m) ? { windows: true as const } : {}),
});

export type SkewFact = { status: string; oldest: string | null; oldestBuild: string | null; lag: number | null; mode: string | null };
export type ReadinessFact = { target: string; status: string; blockers: string[] };

export function factsOf(s: ClusterSnapshot, skew: ClusterSkew, readiness: Readiness | null): Fact[] {
  const facts: Fact[] = [];
  if (s.version)
    facts.push({
      fact: "version",
      key: "",
      value: { current: s.version.current, desired: s.version.desired, updating: s.version.updating } satisfies VersionFact,
    });
  for (const m of s.machineSets) facts.push({ fact: "bootImage", key: m.machineSet, value: bootImageFact(m, m.mco.reason) });
  const status = s.enforcement?.status;
  if (s.enforcement)
    facts.push({
      fact: "enforcement",
      key: "",
      value: {
        mode: status?.mode ?? null,
        ocpVersion: (status?.automatic ?? status?.manual)?.ocpVersion ?? null,
        rhcosVersion: (status?.automatic ?? status?.manual)?.rhcosVersion ?? null,
        specMode: s.enforcement.spec?.mode ?? null,
      },
    });
  const upgradeable = conditionOf(s.machineConfigOperator, "Upgradeable");
  if (s.machineConfigOperator)
    facts.push({
      fact: "upgradeable",
      key: "",
      value: { status: upgradeable?.status ?? "True", reason: upgradeable?.reason ?? null, message: upgradeable?.message ?? null },
    });
  for (const p of s.pools)
    facts.push({
      fact: "pool",
      key: p.name,
      value: {
        machines: p.machineCount,
        ready: p.readyMachineCount,
        updated: p.updatedMachineCount,
        degraded: p.degraded,
        paused: p.paused,
        updating: p.updating,
        imageMode: p.imageMode,
      },
    });
  for (const n of s.nodes)
    if (n.pinned.length)
      facts.push({
        fact: "pinned",
        key: n.name,
        value: {
          sets: n.pinned.map((p) => ({
            set: p.set,
            current: p.currentGeneration,
            desired: p.desiredGeneration,
            failed: p.lastFailedGeneration,
          })),
          degraded: n.pinnedDegraded,
          error: n.pinnedMessage,
        },
      });
  const iri = internalReleaseImageFact(s);
  if (iri) facts.push({ fact: "internalReleaseImage", key: "", value: iri });
  if (readiness)
    facts.push({
      fact: "readiness",
      key: "",
      value: { target: readiness.target, status: readiness.status, blockers: readiness.blockers } satisfies ReadinessFact,
    });
  facts.push({ fact: "skew", key: "", value: skewFact(skew) });
  return facts;
}

/**
 * A registry-less cluster's InternalReleaseImage in brief: which releases it serves and in what
 * state, and what is wrong with its registry (degraded IRI, releases or nodes). Null for a cluster
 * with a registry, so those write nothing.
 */
export type InternalReleaseImageFact = {
  releases: { name: string; state: string }[];
  degraded: boolean;
  problems: string[];
  nodesDegraded: string[];
};
export function internalReleaseImageFact(s: ClusterSnapshot): InternalReleaseImageFact | null {
  const state = registryLessState(s);
  if (!state) return null;
  return {
    releases: state.releases.map((r) => ({ name: r.name, state: r.state })),
    degraded: state.problems.length > 0,
    // Reasons, not messages: a node's message carries the registry's error text, which varies between sweeps.
    problems: state.problems.map((p) => `${p.source}: ${p.reason ?? "no reason given"}`),
    nodesDegraded: state.nodes.filter((n) => n.state === "degraded").map((n) => n.node),
  };
}

export const skewFact = (skew: ClusterSkew): SkewFact => ({
  status: skew.status,
  oldest: skew.oldest?.ocpVersion ?? null,
  oldestBuild: skew.oldest?.rhcosBuild ?? null,
  lag: skew.oldest?.lagMinors ?? null,
  mode: skew.effectiveMode,
});

export const hashOf = (value: unknown) => createHash("sha1").update(JSON.stringify(value)).digest("base64url");

export const withHashes = (facts: Fact[]) => facts.map((f) => ({ ...f, hash: hashOf(f.value) }));

/**
 * The approximate past of a cluster seen for the first time (all of it inferred):
 * - its versions over time from ClusterVersion history;
 * - every MachineSet booting the install version's image from the install until the MCO opted the
 *   cluster into boot-image updates (`boot-image-updates-opted-in-at`), or until now;
 * - the skew each release implied, with those boot images.
 */
export function backfillOf(
  s: ClusterSnapshot,
  now: Date,
  table: SkewLimitEntry[] = MCO_SKEW_LIMITS,
): { fact: FactName; key: string; value: Record<string, unknown>; at: Date }[] {
  const history = s.version?.history ?? [];
  const out: { fact: FactName; key: string; value: Record<string, unknown>; at: Date }[] = [];
  const time = (t: string | null) => {
    const d = t ? new Date(t) : null;
    return d && !Number.isNaN(d.getTime()) && d < now ? d : null;
  };
  const completed = [...history].reverse().filter((h) => h.state === "Completed" && h.version);
  for (const h of completed) {
    const at = time(h.completionTime) ?? time(h.startedTime);
    if (at)
      out.push({ fact: "version", key: "", value: { current: h.version, desired: h.version, updating: false } satisfies VersionFact, at });
  }
  const oldestEntry = [...history].reverse()[0];
  const installedAt = time(oldestEntry?.completionTime ?? null) ?? time(oldestEntry?.startedTime ?? null);
  const install = installVersion(history);
  if (!installedAt || install === "0.0.0") return out;
  for (const m of s.machineSets)
    out.push({
      fact: "bootImage",
      key: m.machineSet,
      value: {
        display: "the image the cluster was installed with",
        ocpVersion: install,
        rhcosBuild: null,
        provenance: "install-version",
        mco: m.mco.action,
        reason: "inferred from the install version",
      } satisfies BootImageFact,
      at: installedAt,
    });
  const optedIn = time(s.optedInAt);
  if (optedIn && optedIn > installedAt)
    for (const m of s.machineSets.filter((x) => x.mco.action === "update"))
      out.push({
        fact: "bootImage",
        key: m.machineSet,
        value: bootImageFact(m, "managed since the MCO opted the cluster in"),
        at: optedIn,
      });

  // The skew each release implied, judged by the same rules as a live sweep so that the inferred
  // past and the first observation agree where nothing changed: the boot images inferred above, the
  // release's own boot image in coreos-bootimages, and no enforcement settings (none can be read
  // from the past; today's managed-boot-image choice is assumed to have held).
  const bootImagesAt = (at: Date): MachineSetFacts[] =>
    s.machineSets.map((m) =>
      optedIn && at >= optedIn && m.mco.action === "update"
        ? m
        : { ...m, ocpVersion: install, rhcosBuild: null, provenance: "install-version" as const },
    );
  const releases = [
    { version: install, at: installedAt },
    ...completed
      .map((h) => ({ version: h.version, at: time(h.completionTime) ?? time(h.startedTime) }))
      .filter((r): r is { version: string; at: Date } => !!r.at && r.at > installedAt),
  ];
  if (optedIn && optedIn > installedAt) {
    const then = [...releases].reverse().find((r) => r.at <= optedIn);
    if (then) releases.push({ version: then.version, at: optedIn });
    releases.sort((a, b) => a.at.getTime() - b.at.getTime());
  }
  let previous: string | null = null;
  for (const r of releases) {
    const past: ClusterSnapshot = {
      ...s,
      version: s.version ? { ...s.version, current: r.version, desired: r.version, updating: false } : null,
      machineSets: bootImagesAt(r.at),
      enforcement: null,
      bootImageRelease: r.version,
    };
    const value = skewFact(clusterSkew(past, table));
    const hash = JSON.stringify(value);
    if (hash !== previous) out.push({ fact: "skew", key: "", value, at: r.at });
    previous = hash;
  }
  return out;
}
