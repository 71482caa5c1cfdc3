import { auditRow, type AuditInput } from "./audit";
import { ClusterNameTakenError } from "./clusters";
import { getDb } from "./db";
import { Prisma } from "./generated/prisma/client";
import { addToCatalog, writeObservation, type SweepSuccess } from "./history";
import { prismaSql } from "./sqlTransaction";

/**
 * Offline clusters: imported from object dumps, never swept (no credentials, no schedule). Each
 * import is a capture, stored like a sweep at the capture time: a new capture adds history for what
 * changed since the previous one.
 */
export type OfflineCapture = Pick<SweepSuccess, "snapshot" | "snapshotHash" | "facts" | "summary" | "backfill" | "catalog"> & {
  name: string;
  /** Kept as they are on a later capture when not given. */
  displayName?: string;
  labels?: Record<string, string>;
  /** From the capture's Infrastructure, when it has one. */
  apiUrl: string | null;
  platform: string | null;
  capturedAt: Date;
};

export type OfflineCaptureStored = { cluster: "created" | "updated"; historyRows: number; previousCaptureAt: Date | null };

/** Why a capture cannot be stored under its name. */
export class OfflineCaptureRefused extends Error {
  override name = "OfflineCaptureRefused";
  constructor(
    readonly reason: "live-cluster" | "not-newer",
    message: string,
  ) {
    super(message);
  }
}

type Actor = Omit<AuditInput, "action" | "targetType" | "targetId">;

/**
 * Stores a capture: the offline cluster (created on its first capture), its state and history, the
 * boot images it taught the fleet catalog, and the audit event, in one transaction. The cluster's
 * row is locked first, so two imports under one name are stored one after the other.
 */
export async function recordOfflineCapture(input: OfflineCapture, actor: Actor): Promise<OfflineCaptureStored> {
  try {
    return await getDb().$transaction(async (tx) => {
      const existing = await tx.$queryRaw<{ id: string; offline: boolean }[]>`
        SELECT "id", "offline" FROM "Cluster" WHERE "name" = ${input.name} FOR UPDATE`;
      let clusterId: string;
      let previousCaptureAt: Date | null = null;
      if (existing[0]) {
        if (!existing[0].offline)
          throw new OfflineCaptureRefused(
            "live-cluster",
            `${input.name} is a registered cluster that Fleetskew contacts; import the dumps under another name`,
          );
        clusterId = existing[0].id;
        const state = await tx.clusterState.findUnique({ where: { clusterId }, select: { lastSeenAt: true } });
        previousCaptureAt = state?.lastSeenAt ?? null;
        if (previousCaptureAt && previousCaptureAt.getTime() >= input.capturedAt.getTime())
          throw new OfflineCaptureRefused(
            "not-newer",
            `${input.name} already has a capture from ${previousCaptureAt.toISOString()}; a new capture must be newer than that (this one is from ${input.capturedAt.toISOString()})`,
          );
        await tx.cluster.update({
          where: { id: clusterId },
          data: {
            ...(input.displayName !== undefined ? { displayName: input.displayName } : {}),
            ...(input.labels !== undefined ? { labels: input.labels } : {}),
            ...(input.platform ? { platform: input.platform } : {}),
            ...(input.apiUrl ? { apiUrl: input.apiUrl } : {}),
          },
        });
      } else {
        const created = await tx.cluster.create({
          data: {
            name: input.name,
            displayName: input.displayName ?? input.name,
            labels: input.labels ?? {},
            platform: input.platform,
            apiUrl: input.apiUrl ?? "",
            // Nothing to seal: an offline cluster is never contacted, and nothing opens its credentials.
            encryptedCredentials: new Uint8Array(0),
            offline: true,
          },
          select: { id: true },
        });
        clusterId = created.id;
      }
      const { rows } = await writeObservation(prismaSql(tx), {
        clusterId,
        at: input.capturedAt,
        snapshot: input.snapshot,
        snapshotHash: input.snapshotHash,
        facts: input.facts,
        summary: input.summary,
        backfill: input.backfill,
      });
      await addToCatalog(prismaSql(tx), input.catalog, input.name);
      await tx.auditEvent.create({
        data: auditRow({
          ...actor,
          action: "cluster.import",
          targetType: "cluster",
          targetId: input.name,
          details: {
            ...actor.details,
            capturedAt: input.capturedAt.toISOString(),
            previousCaptureAt: previousCaptureAt?.toISOString() ?? null,
            version: input.summary.version,
            historyRows: rows,
          },
        }),
      });
      return { cluster: existing[0] ? "updated" : "created", historyRows: rows, previousCaptureAt };
    });
  } catch (error) {
    // Two first imports under one new name at once: the second finds the name taken on insert.
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002")
      throw new ClusterNameTakenError(`a cluster named ${input.name} was created meanwhile; import again to add this capture`);
    throw error;
  }
}
