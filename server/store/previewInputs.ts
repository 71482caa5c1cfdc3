import { getDb } from "./db";
import type { Prisma } from "./generated/prisma/client";

/**
 * The objects a config-diff preview reads of a cluster: read when they last changed (`observedAt`),
 * and still the same at the cluster's last successful sweep (`confirmedAt`).
 */
export type StoredPreviewInputs = { key: string; objects: unknown[]; observedAt: string; confirmedAt: string };

export async function previewInputsKey(clusterId: string): Promise<string | null> {
  const row = await getDb().clusterPreviewInputs.findUnique({ where: { clusterId }, select: { key: true } });
  return row?.key ?? null;
}

export async function savePreviewInputs(clusterId: string, input: { key: string; objects: unknown[]; observedAt: Date }): Promise<void> {
  const data = { key: input.key, objects: input.objects as Prisma.InputJsonValue, observedAt: input.observedAt };
  await getDb().clusterPreviewInputs.upsert({ where: { clusterId }, create: { clusterId, ...data }, update: data });
}

export async function findPreviewInputs(clusterName: string): Promise<StoredPreviewInputs | null> {
  const row = await getDb().clusterPreviewInputs.findFirst({
    where: { cluster: { name: clusterName } },
    include: { cluster: { select: { state: { select: { lastSeenAt: true } } } } },
  });
  if (!row) return null;
  const confirmed = row.cluster.state?.lastSeenAt ?? row.observedAt;
  return {
    key: row.key,
    objects: row.objects as unknown[],
    observedAt: row.observedAt.toISOString(),
    confirmedAt: (confirmed > row.observedAt ? confirmed : row.observedAt).toISOString(),
  };
}
