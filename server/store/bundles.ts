import type { Reach } from "../domain/grants";
import { clusterIdsInReach } from "./reach";
import type { ApplicationState } from "../domain/bundles";
import { clipText } from "../domain/clip";
import { auditRow, type AuditInput } from "./audit";
import { getDb } from "./db";
import { Prisma } from "./generated/prisma/client";

/**
 * Upgrade bundles: vetted digests, uploaded manifests and their applications to clusters. Every
 * change is written with its audit event in one transaction.
 */
type Audit = Omit<AuditInput, "action" | "targetType" | "targetId">;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type VettedBundleRecord = { digest: string; note: string; vettedBy: string; vettedAt: string };

const vettedOf = (r: { digest: string; note: string; vettedBy: string; vettedAt: Date }): VettedBundleRecord => ({
  ...r,
  vettedAt: r.vettedAt.toISOString(),
});

export class AlreadyVettedError extends Error {
  constructor(readonly existing: VettedBundleRecord) {
    super(`sha256:${existing.digest} was already vetted by ${existing.vettedBy}`);
  }
}

export async function insertVettedBundle(
  input: { digest: string; note: string; vettedBy: string },
  audit: Audit,
): Promise<VettedBundleRecord> {
  try {
    const [row] = await getDb().$transaction([
      getDb().vettedBundle.create({ data: input }),
      getDb().auditEvent.create({
        data: auditRow({
          ...audit,
          action: "bundle.vet",
          targetType: "bundle",
          targetId: `sha256:${input.digest}`,
          summary: `vetted bundle sha256:${input.digest.slice(0, 12)}…: ${input.note}`,
          details: { note: input.note },
        }),
      }),
    ]);
    return vettedOf(row);
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      const existing = await getDb().vettedBundle.findUnique({ where: { digest: input.digest } });
      if (existing) throw new AlreadyVettedError(vettedOf(existing));
    }
    throw error;
  }
}

export async function findVettedBundle(digest: string): Promise<VettedBundleRecord | null> {
  const row = await getDb().vettedBundle.findUnique({ where: { digest } });
  return row ? vettedOf(row) : null;
}

export async function listVettedBundles(): Promise<VettedBundleRecord[]> {
  return (await getDb().vettedBundle.findMany({ orderBy: { vettedAt: "desc" } })).map(vettedOf);
}

export type BundleRecord = {
  digest: string;
  manifest: unknown;
  releaseVersion: string;
  releaseImage: string;
  imageCount: number;
  totalBytes: number;
  uploadedBy: string;
  uploadedAt: string;
};

const bundleOf = (r: {
  digest: string;
  manifest: unknown;
  releaseVersion: string;
  releaseImage: string;
  imageCount: number;
  totalBytes: bigint;
  uploadedBy: string;
  uploadedAt: Date;
}): BundleRecord => ({ ...r, totalBytes: Number(r.totalBytes), uploadedAt: r.uploadedAt.toISOString() });

/** Stores an uploaded manifest (a second upload of the same file keeps the first record). */
export async function saveBundle(input: Omit<BundleRecord, "uploadedAt">, audit: Audit): Promise<BundleRecord> {
  return getDb().$transaction(async (tx) => {
    const existing = await tx.bundle.findUnique({ where: { digest: input.digest } });
    const row =
      existing ??
      (await tx.bundle.create({
        data: { ...input, manifest: input.manifest as Prisma.InputJsonValue, totalBytes: BigInt(input.totalBytes) },
      }));
    await tx.auditEvent.create({
      data: auditRow({
        ...audit,
        action: "bundle.upload",
        targetType: "bundle",
        targetId: `sha256:${input.digest}`,
        summary: `uploaded the bundle for ${input.releaseVersion} (sha256:${input.digest.slice(0, 12)}…, ${input.imageCount} images)`,
        details: { release: input.releaseVersion, images: input.imageCount, bytes: input.totalBytes, again: !!existing },
      }),
    });
    return bundleOf(row);
  });
}

export async function findBundle(digest: string): Promise<BundleRecord | null> {
  const row = await getDb().bundle.findUnique({ where: { digest } });
  return row ? bundleOf(row) : null;
}

export async function listBundles(): Promise<BundleRecord[]> {
  return (await getDb().bundle.findMany({ orderBy: { uploadedAt: "desc" } })).map(bundleOf);
}

export type { ApplicationState };

/** One pool's PinnedImageSet, and the labels that aim it at the pool. */
export type ApplicationPool = { pool: string; set: string; labels: Record<string, string> };

export type ApplicationRecord = {
  id: string;
  bundleDigest: string;
  releaseVersion: string;
  releaseImage: string;
  clusterId: string;
  cluster: string;
  state: ApplicationState;
  pools: ApplicationPool[];
  confirmedWarnings: string[];
  createdBy: string;
  createdAt: string;
  updatedAt: string;
  lastError: string | null;
  upgradeStartedBy: string | null;
  upgradeStartedAt: string | null;
  overrideReason: string | null;
  upgradedAt: string | null;
  unpinnedAt: string | null;
};

const include = { bundle: { select: { releaseVersion: true, releaseImage: true } }, cluster: { select: { name: true } } } as const;
type Row = Prisma.BundleApplicationGetPayload<{ include: typeof include }>;

const iso = (d: Date | null) => d?.toISOString() ?? null;
const applicationOf = (r: Row): ApplicationRecord => ({
  id: r.id,
  bundleDigest: r.bundleDigest,
  releaseVersion: r.bundle.releaseVersion,
  releaseImage: r.bundle.releaseImage,
  clusterId: r.clusterId,
  cluster: r.cluster.name,
  state: r.state as ApplicationState,
  pools: r.pools as ApplicationRecord["pools"],
  confirmedWarnings: r.confirmedWarnings as string[],
  createdBy: r.createdBy,
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
  lastError: r.lastError,
  upgradeStartedBy: r.upgradeStartedBy,
  upgradeStartedAt: iso(r.upgradeStartedAt),
  overrideReason: r.overrideReason,
  upgradedAt: iso(r.upgradedAt),
  unpinnedAt: iso(r.unpinnedAt),
});

/**
 * Records the application of a bundle to a cluster, or finds the one already recorded: applying
 * twice changes nothing.
 */
export async function insertApplication(
  input: {
    bundleDigest: string;
    clusterId: string;
    pools: { pool: string; set: string }[];
    confirmedWarnings: string[];
    createdBy: string;
  },
  audit: Audit & { summary: string },
): Promise<{ application: ApplicationRecord; created: boolean }> {
  try {
    const row = await getDb().$transaction(async (tx) => {
      const created = await tx.bundleApplication.create({
        data: { ...input, state: "applying", pools: input.pools, confirmedWarnings: input.confirmedWarnings },
        include,
      });
      await tx.auditEvent.create({
        data: auditRow({
          ...audit,
          action: "bundle.apply",
          targetType: "cluster",
          targetId: created.cluster.name,
          details: {
            application: created.id,
            bundle: `sha256:${input.bundleDigest}`,
            pools: input.pools,
            confirmedWarnings: input.confirmedWarnings,
          },
        }),
      });
      return created;
    });
    return { application: applicationOf(row), created: true };
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      const existing = await getDb().bundleApplication.findUnique({
        where: { bundleDigest_clusterId: { bundleDigest: input.bundleDigest, clusterId: input.clusterId } },
        include,
      });
      if (existing) return { application: applicationOf(existing), created: false };
    }
    throw error;
  }
}

export async function findApplication(id: string): Promise<ApplicationRecord | null> {
  if (!UUID.test(id)) return null;
  const row = await getDb().bundleApplication.findUnique({ where: { id }, include });
  return row ? applicationOf(row) : null;
}

/** Newest first, at most 500; `reach` keeps those on clusters in it (the store's one reach condition). */
export async function listApplications(
  filter: { states?: ApplicationState[]; clusterId?: string; reach?: Reach } = {},
): Promise<ApplicationRecord[]> {
  const inReach = filter.reach && filter.reach.kind !== "fleet" ? await clusterIdsInReach(filter.reach) : null;
  const rows = await getDb().bundleApplication.findMany({
    where: {
      ...(inReach ? { AND: [{ clusterId: { in: inReach } }] } : {}),
      ...(filter.states ? { state: { in: [...filter.states] } } : {}),
      ...(filter.clusterId ? { clusterId: filter.clusterId } : {}),
    },
    orderBy: { createdAt: "desc" },
    include,
    take: 500,
  });
  return rows.map(applicationOf);
}

export type ApplicationChange = Partial<{
  state: ApplicationState;
  lastError: string | null;
  upgradeStartedBy: string | null;
  upgradeStartedAt: Date | null;
  overrideReason: string | null;
  upgradedAt: Date | null;
  unpinnedAt: Date | null;
  /** Applying again after an unpin starts the application over. */
  pools: ApplicationPool[];
  confirmedWarnings: string[];
  createdBy: string;
  createdAt: Date;
}>;

/**
 * Moves an application on, only from the states given (so two processes never both act on one
 * transition), with an audit event when there is one to write. A state change without a person's
 * event (the console following the cluster: pre-loaded, upgraded, unpinned) is recorded as the
 * console's own, in the same transaction. Null when it was not in those states.
 */
export async function updateApplication(
  id: string,
  from: ApplicationState[],
  change: ApplicationChange,
  audit?: AuditInput,
): Promise<ApplicationRecord | null> {
  return getDb().$transaction(async (tx) => {
    if (!UUID.test(id)) return null;
    const [before] = await tx.$queryRaw<{ state: string }[]>`SELECT "state" FROM "BundleApplication" WHERE "id" = ${id}::uuid FOR UPDATE`;
    // lastError carries a cluster's answer: clipped where it is stored (server/domain/clip.ts).
    const data = change.lastError === undefined ? change : { ...change, lastError: clipText(change.lastError) };
    const { count } = await tx.bundleApplication.updateMany({ where: { id, state: { in: from } }, data });
    if (count === 0) return null;
    const record = applicationOf((await tx.bundleApplication.findUnique({ where: { id }, include }))!);
    const moved = change.state !== undefined && change.state !== before?.state;
    const event: AuditInput | undefined =
      audit ??
      (moved
        ? {
            actor: null,
            action: "bundle.application.state",
            targetType: "cluster",
            targetId: record.cluster,
            summary: `bundle application for ${record.releaseVersion} on ${record.cluster} is now ${change.state}`,
            details: { application: id, from: before?.state ?? null, to: change.state, lastError: record.lastError },
          }
        : undefined);
    if (event) await tx.auditEvent.create({ data: auditRow(event) });
    return record;
  });
}
