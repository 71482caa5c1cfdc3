import type { Eligibility, HubClusterState } from "../domain/hubEligibility";
import { auditRow, type AuditInput } from "./audit";
import { clusterRow, type NewCluster } from "./clusters";
import { getDb } from "./db";
import { retryOnConflict } from "./errors";
import { Prisma } from "./generated/prisma/client";
import type { Reach } from "../domain/grants";
import { adder, clusterInReachSql } from "./scope";

/**
 * ACM hubs and what their last sync saw. A hub's clusters are ordinary Cluster rows with `hubId`
 * and `hubState`; HubMember keeps every managed cluster, eligible or not, with its reason.
 */
export type HubSyncStatus = "pending" | "ok" | "error";
/** How a hub's clusters are reached through its cluster-proxy (docs/acm.md §4). */
export type HubAccess = "impersonation" | "managed-service-account";

export type HubSummary = {
  name: string;
  apiUrl: string;
  proxyUrl: string;
  access: HubAccess;
  concurrency: number;
  createdAt: string;
  createdBy: string;
  lastSyncAt: string | null;
  lastSyncStatus: HubSyncStatus;
  lastSyncError: string | null;
  counts: { total: number; eligible: number; ineligible: number; offline: number; removed: number };
};

export type HubMemberRecord = {
  name: string;
  state: HubClusterState;
  eligibility: Eligibility;
  reason: string | null;
  clusterSet: string | null;
  labels: Record<string, string>;
  registeredAs: string | null;
  /** What its ManagedClusterInfo says (null: not reported, or not OpenShift). */
  version: string | null;
  desiredVersion: string | null;
  upgradeFailed: boolean;
  nodes: number | null;
  readyNodes: number | null;
};

export type HubRecord = {
  id: string;
  name: string;
  apiUrl: string;
  proxyUrl: string;
  access: HubAccess;
  concurrency: number;
  sealed: Buffer;
};

const hubRecord = (r: {
  id: string;
  name: string;
  apiUrl: string;
  proxyUrl: string;
  access: string;
  concurrency: number;
  encryptedCredentials: Uint8Array;
}): HubRecord => ({
  id: r.id,
  name: r.name,
  apiUrl: r.apiUrl,
  proxyUrl: r.proxyUrl,
  access: r.access as HubAccess,
  concurrency: r.concurrency,
  sealed: Buffer.from(r.encryptedCredentials),
});

export class HubNameTakenError extends Error {
  override name = "HubNameTakenError";
}

type Actor = Omit<AuditInput, "action" | "targetType" | "targetId">;

export async function insertHub(
  input: {
    name: string;
    apiUrl: string;
    proxyUrl: string;
    access: HubAccess;
    concurrency: number;
    encryptedCredentials: Buffer;
    createdBy: string;
  },
  actor: Actor,
): Promise<void> {
  try {
    await getDb().$transaction([
      getDb().hub.create({ data: { ...input, encryptedCredentials: new Uint8Array(input.encryptedCredentials) }, select: { id: true } }),
      getDb().auditEvent.create({
        data: auditRow({
          ...actor,
          action: "hub.register",
          targetType: "hub",
          targetId: input.name,
          details: { apiUrl: input.apiUrl, proxyUrl: input.proxyUrl, access: input.access },
        }),
      }),
    ]);
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002")
      throw new HubNameTakenError(`a hub named ${input.name} is already registered`);
    throw error;
  }
}

/** Where a hub is served and its sealed credentials, replaced (the demo hub after a restart on other ports). */
export async function updateHubConnection(
  name: string,
  change: { apiUrl: string; proxyUrl: string; access: HubAccess; encryptedCredentials: Buffer },
): Promise<void> {
  await getDb().hub.update({ where: { name }, data: { ...change, encryptedCredentials: new Uint8Array(change.encryptedCredentials) } });
}

export async function listHubRecords(): Promise<HubRecord[]> {
  const rows = await getDb().hub.findMany({ orderBy: { name: "asc" } });
  return rows.map(hubRecord);
}

export async function findHubRecord(name: string): Promise<HubRecord | null> {
  const r = await getDb().hub.findUnique({ where: { name } });
  return r ? hubRecord(r) : null;
}

/**
 * Every hub with counts of its managed clusters. Within a reach short of the whole fleet only the
 * members followed as a cluster in reach are counted: a hub's other clusters are another team's.
 */
export async function listHubSummaries(reach: Reach): Promise<HubSummary[]> {
  const [hubs, groups] = await Promise.all([
    getDb().hub.findMany({ orderBy: { name: "asc" }, omit: { encryptedCredentials: true } }),
    reach.kind === "fleet"
      ? getDb().hubMember.groupBy({ by: ["hubId", "state", "eligibility"], _count: { _all: true } })
      : memberCountsInReach(reach),
  ]);
  return hubs.map((h) => {
    const counts = { total: 0, eligible: 0, ineligible: 0, offline: 0, removed: 0 };
    for (const g of groups.filter((g) => g.hubId === h.id)) {
      const n = g._count._all;
      counts.total += n;
      if (g.state === "removed") counts.removed += n;
      else if (g.state === "lease-expired") counts.offline += n;
      if (g.state !== "removed") {
        if (g.eligibility === "eligible") counts.eligible += n;
        else counts.ineligible += n;
      }
    }
    return {
      name: h.name,
      apiUrl: h.apiUrl,
      proxyUrl: h.proxyUrl,
      access: h.access as HubAccess,
      concurrency: h.concurrency,
      createdAt: h.createdAt.toISOString(),
      createdBy: h.createdBy,
      lastSyncAt: h.lastSyncAt?.toISOString() ?? null,
      lastSyncStatus: h.lastSyncStatus as HubSyncStatus,
      lastSyncError: h.lastSyncError,
      counts,
    };
  });
}

async function memberCountsInReach(reach: Reach) {
  const values: unknown[] = [];
  const rows = await getDb().$queryRawUnsafe<{ hubId: string; state: string; eligibility: string; n: number }[]>(
    `SELECT m."hubId", m."state", m."eligibility", count(*)::int AS n FROM "HubMember" m
      WHERE m."registeredAs" IS NOT NULL AND ${clusterInReachSql(reach, `m."registeredAs"`, adder(values))}
      GROUP BY 1, 2, 3`,
    ...values,
  );
  return rows.map((r) => ({ hubId: r.hubId, state: r.state, eligibility: r.eligibility, _count: { _all: r.n } }));
}

/** A hub's managed clusters; within a reach short of the whole fleet, only those followed as a cluster in reach. */
export async function listHubMembers(hubId: string, reach: Reach): Promise<HubMemberRecord[]> {
  let rows = await getDb().hubMember.findMany({ where: { hubId }, orderBy: { name: "asc" } });
  if (reach.kind !== "fleet") {
    const values: unknown[] = [hubId];
    const names = await getDb().$queryRawUnsafe<{ name: string }[]>(
      `SELECT m."name" FROM "HubMember" m WHERE m."hubId" = $1::uuid AND m."registeredAs" IS NOT NULL
          AND ${clusterInReachSql(reach, `m."registeredAs"`, adder(values))}`,
      ...values,
    );
    const shown = new Set(names.map((n) => n.name));
    rows = rows.filter((r) => shown.has(r.name));
  }
  return rows.map((r) => ({
    name: r.name,
    state: r.state as HubClusterState,
    eligibility: r.eligibility as Eligibility,
    reason: r.reason,
    clusterSet: r.clusterSet,
    labels: (r.labels ?? {}) as Record<string, string>,
    registeredAs: r.registeredAs,
    version: r.version,
    desiredVersion: r.desiredVersion,
    upgradeFailed: r.upgradeFailed,
    nodes: r.nodes,
    readyNodes: r.readyNodes,
  }));
}

export type HubOwnCluster = {
  hubState: string | null;
  labels: Record<string, string>;
  apiUrl: string;
  /** Which hub-issued credential is sealed for it (null: the hub's own proxy token). */
  credentialsVersion: string | null;
};

/** Clusters registered from this hub, and which of `names` are registered some other way. */
export async function hubClusterState(
  hubId: string,
  names: string[],
): Promise<{ own: Map<string, HubOwnCluster>; takenByOthers: Set<string> }> {
  const [own, others] = await Promise.all([
    getDb().cluster.findMany({
      where: { hubId },
      select: { name: true, hubState: true, labels: true, apiUrl: true, hubCredentialsVersion: true },
    }),
    getDb().cluster.findMany({ where: { name: { in: names }, OR: [{ hubId: null }, { hubId: { not: hubId } }] }, select: { name: true } }),
  ]);
  return {
    own: new Map(
      own.map((c) => [
        c.name,
        {
          hubState: c.hubState,
          labels: (c.labels ?? {}) as Record<string, string>,
          apiUrl: c.apiUrl,
          credentialsVersion: c.hubCredentialsVersion,
        },
      ]),
    ),
    takenByOthers: new Set(others.map((c) => c.name)),
  };
}

export type HubSyncWrite = {
  members: HubMemberRecord[];
  /** Eligible clusters seen for the first time. */
  register: NewCluster[];
  /** Clusters of this hub whose state or labels changed, or that are now reached at another proxy URL or with another credential. */
  change: {
    name: string;
    hubState: string;
    labels: Record<string, string>;
    reach?: { apiUrl: string; encryptedCredentials: Buffer; credentialsVersion: string | null };
  }[];
};

/** One sync's outcome, in one transaction: the members as seen, new clusters with their audit events, changed ones. */
export async function applyHubSync(hubId: string, write: HubSyncWrite, actor: Actor, at = new Date()): Promise<void> {
  await getDb().$transaction(
    async (tx) => {
      // One sync of a hub at a time, in whichever process: a second waits here and then replaces the first's members.
      const held = await tx.$queryRaw<{ id: string }[]>`SELECT "id" FROM "Hub" WHERE "id" = ${hubId}::uuid FOR UPDATE`;
      if (held.length === 0) return;
      await tx.hubMember.deleteMany({ where: { hubId } });
      if (write.members.length > 0) await tx.hubMember.createMany({ data: write.members.map((m) => ({ ...m, hubId })) });
      if (write.register.length > 0) {
        // Another way of registering may have taken a name since the sync looked: those are left out.
        const created = new Set(
          (
            await tx.cluster.createManyAndReturn({ data: write.register.map(clusterRow), skipDuplicates: true, select: { name: true } })
          ).map((c) => c.name),
        );
        await tx.auditEvent.createMany({
          data: write.register
            .filter((c) => created.has(c.name))
            .map((c) =>
              auditRow({
                ...actor,
                action: "cluster.register",
                targetType: "cluster",
                targetId: c.name,
                details: { apiUrl: c.apiUrl, source: "hub", ...actor.details },
              }),
            ),
        });
      }
      for (const c of write.change) {
        await tx.cluster.updateMany({
          where: { hubId, name: c.name },
          data: {
            hubState: c.hubState,
            labels: c.labels,
            ...(c.reach
              ? {
                  apiUrl: c.reach.apiUrl,
                  encryptedCredentials: new Uint8Array(c.reach.encryptedCredentials),
                  hubCredentialsVersion: c.reach.credentialsVersion,
                }
              : {}),
          },
        });
        if (c.hubState === "removed")
          await tx.auditEvent.create({
            data: auditRow({
              ...actor,
              action: "cluster.hub-removed",
              targetType: "cluster",
              targetId: c.name,
              summary: `deleted on the hub; kept with its history`,
            }),
          });
      }
      await tx.hub.update({ where: { id: hubId }, data: { lastSyncAt: at, lastSyncStatus: "ok", lastSyncError: null } });
    },
    { timeout: 60_000 },
  );
}

export async function recordHubSyncFailure(hubId: string, error: string, at = new Date()): Promise<void> {
  await getDb().hub.updateMany({
    where: { id: hubId },
    data: { lastSyncAt: at, lastSyncStatus: "error", lastSyncError: error.slice(0, 2000) },
  });
}

/**
 * Forgets a hub: its clusters stay, marked removed, with their history; its members go with it.
 * Marking them locks every one of its clusters' rows (and their fleet index rows), which the hub's
 * sync and the sweeps also write, in their own order: PostgreSQL then breaks the deadlock by
 * rolling one back, and a rolled-back removal runs again.
 */
export async function deleteHub(name: string, actor: Actor): Promise<string[] | null> {
  return retryOnConflict(() =>
    getDb().$transaction(async (tx) => {
      const hub = await tx.hub.findUnique({ where: { name }, select: { id: true } });
      if (!hub) return null;
      const clusters = await tx.cluster.findMany({ where: { hubId: hub.id }, select: { name: true } });
      await tx.cluster.updateMany({ where: { hubId: hub.id }, data: { hubState: "removed" } });
      await tx.hub.delete({ where: { id: hub.id } });
      await tx.auditEvent.create({
        data: auditRow({ ...actor, action: "hub.remove", targetType: "hub", targetId: name, details: { clusters: clusters.length } }),
      });
      return clusters.map((c) => c.name);
    }),
  );
}

/** Every hub's sealed credentials (for `npm run keys:reseal`). */
export async function listSealedHubSecrets(): Promise<{ name: string; sealed: Buffer }[]> {
  const rows = await getDb().hub.findMany({ select: { name: true, encryptedCredentials: true }, orderBy: { name: "asc" } });
  return rows.map((r) => ({ name: r.name, sealed: Buffer.from(r.encryptedCredentials) }));
}

/** Replaces a hub's sealed credentials, only if they are still what was read (no lost update). */
export async function replaceSealedHubSecrets(name: string, expected: Uint8Array, sealed: Uint8Array<ArrayBuffer>): Promise<boolean> {
  const { count } = await getDb().hub.updateMany({
    where: { name, encryptedCredentials: { equals: Buffer.from(expected) } },
    data: { encryptedCredentials: sealed },
  });
  return count > 0;
}
