/**
 * People's decisions about a rollout's waves and clusters: releasing a wave, and skipping, retrying
 * or including clusters. Each is one transaction with its audit event, under the rollout's row lock,
 * and says which clusters it changed and which it left alone.
 */
import { auditRow, type AuditInput } from "./audit";
import { getDb } from "./db";
import { storedTime } from "./fleet";
import type { Prisma } from "./generated/prisma/client";
import { CLAIM_LEASE_MS, IN_FLIGHT } from "./rolloutClaims";
import { ACTIVE_STATUSES, recordOf, type RolloutClusterState, type RolloutRecord, type RolloutStatus } from "./rolloutRecords";

/** Marks a wave released by `by`, with its audit event; false when it was released already. */
export async function releaseWave(rolloutId: string, index: number, by: string, audit: AuditInput): Promise<boolean> {
  return getDb().$transaction(async (tx) => {
    const result = await tx.rolloutWave.updateMany({
      where: { rolloutId, index, releasedAt: null },
      data: { releasedAt: new Date(), releasedBy: by },
    });
    if (result.count !== 1) return false;
    const { number } = await tx.rollout.findUniqueOrThrow({ where: { id: rolloutId }, select: { number: true } });
    await tx.auditEvent.create({ data: auditRow({ ...audit, details: { ...audit.details, rollout: number, wave: index } }) });
    return true;
  });
}

/** `inFlight`: of the clusters skipped, how many had a write on the wire when the skip committed. */
export type ClusterActionResult = {
  changed: string[];
  /** Clusters named in the decision and left alone, with their state now (null: not in this rollout). */
  leftAlone: { cluster: string; state: RolloutClusterState | null }[];
  number: number;
  inFlight: number;
};

/** Named clusters, only while in `state` when given (the state the person saw them in); or every cluster in a state. */
export type ClusterSelection = { names: string[]; state?: RolloutClusterState } | { state: RolloutClusterState };

/**
 * A person's decision about some of a rollout's clusters, with its audit event, in one transaction
 * under the rollout's row lock (the runner's changes are conditional on the state, so a step the
 * runner moved on meanwhile is left alone and not counted as changed).
 *
 * - skip: the cluster ends as skipped; a step already sent stays sent and is followed to its end (its outcome).
 * - retry: a failed cluster goes back to pending, its step's times cleared, so the runner writes it again.
 * - include: an excluded cluster joins the last wave, with who included it and why; a cluster held
 *   by another rollout that has not ended cannot be included.
 */
export async function decideRolloutClusters(
  rolloutId: string,
  action: "skip" | "retry" | "include",
  selection: ClusterSelection,
  options: { allowedStatuses: readonly RolloutStatus[]; by: string; why: string },
  audit: (current: RolloutRecord, changed: string[]) => AuditInput,
): Promise<ClusterActionResult | { refused: string }> {
  return getDb().$transaction(
    async (tx) => {
      if (action === "include") await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(hashtext('fleetskew.rollouts.plan'))`);
      const [locked] = await tx.$queryRawUnsafe<{ id: string }[]>(`SELECT "id" FROM "Rollout" WHERE "id" = $1::uuid FOR UPDATE`, rolloutId);
      if (!locked) return { refused: "no such rollout" };
      const current = recordOf(await tx.rollout.findUniqueOrThrow({ where: { id: rolloutId } }));
      if (!options.allowedStatuses.includes(current.status)) return { refused: `rollout ${current.number} is ${current.status}` };
      const from: Record<typeof action, readonly RolloutClusterState[]> = {
        skip: ["pending", "waiting-window", "running", "failed"],
        retry: ["failed"],
        include: ["excluded"],
      };
      const states = selection.state ? from[action].filter((s) => s === selection.state) : from[action];
      const rows = await tx.rolloutCluster.findMany({
        where: { rolloutId, ...("names" in selection ? { clusterName: { in: selection.names } } : {}), state: { in: [...states] } },
        select: { clusterName: true },
        orderBy: { clusterName: "asc" },
      });
      const names = rows.map((r) => r.clusterName);
      let inFlight = 0;
      if (action === "include" && names.length) {
        const [held] = await tx.$queryRawUnsafe<{ clusterName: string; number: number }[]>(
          `SELECT rc."clusterName", r."number" FROM "RolloutCluster" rc JOIN "Rollout" r ON r."id" = rc."rolloutId"
            WHERE rc."clusterName" = ANY($1::text[]) AND rc."state" <> 'excluded' AND r."status" = ANY($2::text[])
              AND r."id" <> $3::uuid LIMIT 1`,
          names,
          ACTIVE_STATUSES,
          rolloutId,
        );
        if (held) return { refused: `${held.clusterName} is in rollout ${held.number}, which has not ended` };
        const known = await tx.cluster.findMany({ where: { name: { in: names } }, select: { id: true, name: true } });
        const gone = names.find((n) => !known.some((k) => k.name === n));
        if (gone) return { refused: `${gone} is no longer registered` };
        let last = await tx.rolloutWave.findFirst({ where: { rolloutId }, orderBy: { index: "desc" } });
        last ??= await tx.rolloutWave.create({ data: { rolloutId, index: 0, name: "Included by hand", kind: "batch", mandatory: false } });
        for (const k of known)
          await tx.rolloutCluster.updateMany({
            where: { rolloutId, clusterName: k.name, state: "excluded" },
            data: { state: "pending", wave: last.index, clusterId: k.id, includedBy: options.by, includedWhy: options.why, reason: null },
          });
      } else if (action === "skip" && names.length) {
        // Under the rollout's row lock no new write is claimed: the skipped clusters' writes claimed
        // before it are the only ones that may still go out. Those, and the ones already sent, are
        // followed to their end (their `outcome`); a failed one has ended already.
        const [{ n } = { n: 0 }] = await tx.$queryRawUnsafe<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM "RolloutCluster" rc
            WHERE rc."rolloutId" = $1::uuid AND rc."clusterName" = ANY($2::text[]) AND ${IN_FLIGHT("rc", "$3::timestamp")}`,
          rolloutId,
          names,
          storedTime(new Date(Date.now() - CLAIM_LEASE_MS)),
        );
        inFlight = n;
        const skipped = {
          state: "skipped",
          reason: `skipped by ${options.by}: ${options.why}`,
          finishedAt: new Date(),
          windowOpensAt: null,
        };
        await tx.rolloutCluster.updateMany({
          where: { rolloutId, clusterName: { in: names }, state: { in: states.filter((s) => s === "failed") } },
          data: { ...skipped, outcome: "failed" },
        });
        await tx.rolloutCluster.updateMany({
          where: { rolloutId, clusterName: { in: names }, state: { in: states.filter((s) => s !== "failed") } },
          data: { ...skipped, nextAttemptAt: null },
        });
      } else if (action === "retry" && names.length) {
        // A person's retry is a new step: its attempts are counted afresh, and a write still on the
        // wire from the old step loses its claim, so its late end cannot mark the new step written.
        await tx.rolloutCluster.updateMany({
          where: { rolloutId, clusterName: { in: names }, state: { in: [...states] } },
          data: {
            state: "pending",
            claimedBy: null,
            claimedAt: null,
            reason: null,
            startedAt: null,
            writtenAt: null,
            finishedAt: null,
            windowOpensAt: null,
            attempts: 0,
            nextAttemptAt: null,
            outcome: null,
          },
        });
      }
      if (names.length) {
        const event = audit(current, names);
        await tx.auditEvent.create({
          data: auditRow({
            ...event,
            details: { ...event.details, rollout: current.number, clusters: names.slice(0, 1000), ...(inFlight ? { inFlight } : {}) },
          }),
        });
      }
      return { changed: names, leftAlone: await leftAloneOf(tx, rolloutId, selection, names), number: current.number, inFlight };
    },
    { timeout: 60_000 },
  );
}

/** The clusters a decision named and did not change, with the state each is in now. */
async function leftAloneOf(tx: Prisma.TransactionClient, rolloutId: string, selection: ClusterSelection, changed: string[]) {
  if (!("names" in selection)) return [];
  const done = new Set(changed);
  const rest = [...new Set(selection.names)].filter((n) => !done.has(n));
  if (!rest.length) return [];
  const rows = await tx.rolloutCluster.findMany({
    where: { rolloutId, clusterName: { in: rest } },
    select: { clusterName: true, state: true },
  });
  const stateOf = new Map(rows.map((r) => [r.clusterName, r.state as RolloutClusterState]));
  return rest.sort().map((cluster) => ({ cluster, state: stateOf.get(cluster) ?? null }));
}
