import { clusterSignals } from "../domain/alertSignals";
import { clusterSkew, type ClusterSkew } from "../domain/clusterSkew";
import { blockingCauses, defaultTarget, evaluateReadiness, type Readiness } from "../domain/readiness";
import type { SkewLimitEntry } from "../domain/skew";
import type { ClusterSnapshot } from "../domain/snapshot";
import type { ClusterObjects } from "../kube/readers";
import type { StateSummary } from "../store/history";
import { backfillOf, factsOf, hashOf, withHashes } from "./facts";
import { normalizeSnapshot } from "./normalize";
import type { BootImageCatalog } from "../domain/bootImageInputs";

/** The fleet-learned catalog, kept in memory by each collector process and fed by every stream it sees. */
export class FleetCatalog implements BootImageCatalog {
  private readonly entries = new Map<string, { rhcosBuild: string; ocpVersion: string | null }>();

  add(entries: { key: string; rhcosBuild: string; ocpVersion: string | null }[]): void {
    for (const e of entries) if (!this.entries.has(e.key)) this.entries.set(e.key, { rhcosBuild: e.rhcosBuild, ocpVersion: e.ocpVersion });
  }

  /** The entries it does not know yet: the ones worth storing. */
  unknown<T extends { key: string }>(entries: T[]): T[] {
    return entries.filter((e) => !this.entries.has(e.key));
  }

  lookup(key: string) {
    return this.entries.get(key) ?? null;
  }

  get size() {
    return this.entries.size;
  }
}

export type Evaluation = {
  snapshot: ClusterSnapshot;
  skew: ClusterSkew;
  readiness: Readiness | null;
  summary: StateSummary;
};

/** Snapshot → skew, readiness for the default target, and the summary columns the fleet table uses. */
export function evaluateSnapshot(snapshot: ClusterSnapshot, limits: SkewLimitEntry[]): Evaluation {
  const skew = clusterSkew(snapshot, limits);
  const target = defaultTarget(snapshot);
  const readiness = target ? evaluateReadiness(snapshot, target, { limits }) : null;
  const firstBlocker = blockingCauses(readiness)[0];
  return {
    snapshot,
    skew,
    readiness,
    summary: {
      version: snapshot.version?.current ?? null,
      skewStatus: skew.status,
      skewSummary: skew.summary,
      enforcementMode: skew.effectiveMode,
      oldestBootImage: skew.oldest?.ocpVersion ?? skew.oldest?.rhcosBuild ?? null,
      readinessTarget: readiness?.target ?? null,
      readinessStatus: readiness?.status ?? "unknown",
      readinessBlocker: firstBlocker?.title ?? null,
      registryLess: Boolean(snapshot.internalReleaseImage),
      signals: clusterSignals(snapshot, limits),
    },
  };
}

/** Everything a store write needs from one read of a cluster. */
export function digest(objects: ClusterObjects, catalog: BootImageCatalog, limits: SkewLimitEntry[], now: Date) {
  return digestSnapshot(normalizeSnapshot(objects, catalog), limits, now);
}

/**
 * What a snapshot's digest depends on, as a hash: the snapshot and the skew limits. The evaluation
 * reads no clock (server/domain is pure), so the same input gives the same `snapshotHash`, and a
 * sweep whose input is the last one's need not evaluate it again to know nothing changed.
 */
export const evaluationInputOf = (snapshot: ClusterSnapshot, limits: SkewLimitEntry[]) => hashOf({ snapshot, limits });

/** Everything a store write needs from a normalized snapshot. */
export function digestSnapshot(snapshot: ClusterSnapshot, limits: SkewLimitEntry[], now: Date) {
  const evaluation = evaluateSnapshot(snapshot, limits);
  const facts = withHashes(factsOf(snapshot, evaluation.skew, evaluation.readiness));
  return {
    ...evaluation,
    // What is derived counts too: new skew limits change the verdicts of an unchanged cluster.
    snapshotHash: hashOf({ snapshot, summary: evaluation.summary, facts: facts.map((f) => f.hash) }),
    facts,
    /** Only a write needs it (first contact, or something changed): most sweeps change nothing. */
    backfill: () => backfillOf(snapshot, now, limits),
  };
}
