import { getDb, getPool } from "./db";
import { utc } from "./sqlTransaction";
import { Prisma } from "./generated/prisma/client";

/**
 * The objects a config-diff preview reads of a cluster, kept sealed (server/preview/storedInputs.ts
 * seals and opens them): read when they last changed (`observedAt`), and still the same at the
 * cluster's last successful sweep (`confirmedAt`). `plain` is set only for a row written before
 * preview inputs were sealed.
 */
export type StoredPreviewInputRow = {
  clusterId: string;
  key: string;
  sealed: Buffer | null;
  plain: unknown[] | null;
  observedAt: string;
  confirmedAt: string;
};

/** The key of the inputs kept for a cluster: asked at every sweep, so sent as SQL (./sqlTransaction.ts says why). */
export async function previewInputsKey(clusterId: string): Promise<string | null> {
  const { rows } = await getPool().query<{ key: string }>(`SELECT "key" FROM "ClusterPreviewInputs" WHERE "clusterId" = $1::uuid`, [
    clusterId,
  ]);
  return rows[0]?.key ?? null;
}

/** Stores sealed inputs; a row kept in the clear before sealing existed loses its clear copy. */
export async function savePreviewInputs(
  clusterId: string,
  input: { key: string; sealed: Uint8Array<ArrayBuffer>; observedAt: Date },
): Promise<void> {
  await getPool().query(
    `INSERT INTO "ClusterPreviewInputs" ("clusterId", "key", "sealed", "objects", "observedAt") VALUES ($1::uuid, $2, $3, NULL, $4::timestamp(3))
     ON CONFLICT ("clusterId") DO UPDATE SET "key" = EXCLUDED."key", "sealed" = EXCLUDED."sealed", "objects" = NULL, "observedAt" = EXCLUDED."observedAt"`,
    [clusterId, input.key, Buffer.from(input.sealed.buffer, input.sealed.byteOffset, input.sealed.byteLength), utc(input.observedAt)],
  );
}

export async function findPreviewInputs(clusterName: string): Promise<StoredPreviewInputRow | null> {
  const row = await getDb().clusterPreviewInputs.findFirst({
    where: { cluster: { name: clusterName } },
    include: { cluster: { select: { state: { select: { lastSeenAt: true } } } } },
  });
  if (!row) return null;
  const confirmed = row.cluster.state?.lastSeenAt ?? row.observedAt;
  return {
    clusterId: row.clusterId,
    key: row.key,
    sealed: row.sealed ? Buffer.from(row.sealed) : null,
    plain: row.sealed ? null : ((row.objects as unknown[] | null) ?? []),
    observedAt: row.observedAt.toISOString(),
    confirmedAt: (confirmed > row.observedAt ? confirmed : row.observedAt).toISOString(),
  };
}

/** Rows kept in the clear (written before sealing), a page at a time, for the start to seal. */
export async function listPlainPreviewInputs(limit = 50): Promise<{ clusterId: string; objects: unknown[] }[]> {
  const rows = await getDb().clusterPreviewInputs.findMany({
    where: { sealed: null },
    select: { clusterId: true, objects: true },
    take: limit,
  });
  return rows.map((r) => ({ clusterId: r.clusterId, objects: (r.objects as unknown[] | null) ?? [] }));
}

/** Sealed rows, a page at a time (by cluster id), for re-sealing under a new key. */
export async function listSealedPreviewInputs(after: string | null, limit = 50): Promise<{ clusterId: string; sealed: Buffer }[]> {
  const rows = await getDb().clusterPreviewInputs.findMany({
    where: { sealed: { not: null }, ...(after ? { clusterId: { gt: after } } : {}) },
    select: { clusterId: true, sealed: true },
    orderBy: { clusterId: "asc" },
    take: limit,
  });
  return rows.map((r) => ({ clusterId: r.clusterId, sealed: Buffer.from(r.sealed!) }));
}

/** Replaces one row's objects with their sealed form, only if the row is still as it was read. */
export async function replaceSealedPreviewInputs(
  clusterId: string,
  expected: { sealed: Uint8Array | null },
  sealed: Uint8Array<ArrayBuffer>,
): Promise<boolean> {
  const { count } = await getDb().clusterPreviewInputs.updateMany({
    where: { clusterId, ...(expected.sealed ? { sealed: Buffer.from(expected.sealed) } : { sealed: null }) },
    data: { sealed, objects: Prisma.DbNull },
  });
  return count > 0;
}
