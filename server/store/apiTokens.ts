import { auditRow, type AuditInput } from "./audit";
import { getDb } from "./db";
import type { Role } from "../domain/accounts";
import { toRecord, type UserRecord } from "./users";

/** A token as its owner and admins see it: never its secret, which is stored only as a SHA-256. */
export type ApiTokenRecord = {
  id: string;
  userId: string;
  owner: string;
  name: string;
  prefix: string;
  role: Role | null;
  scope: string;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
  lastUsedIp: string | null;
};

type Row = {
  id: string;
  userId: string;
  name: string;
  prefix: string;
  role: Role | null;
  scope: string;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  lastUsedIp: string | null;
  user: { username: string };
};

const toToken = (row: Row): ApiTokenRecord => ({
  id: row.id,
  userId: row.userId,
  owner: row.user.username,
  name: row.name,
  prefix: row.prefix,
  role: row.role,
  scope: row.scope,
  createdAt: row.createdAt.toISOString(),
  expiresAt: row.expiresAt.toISOString(),
  revokedAt: row.revokedAt?.toISOString() ?? null,
  lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  lastUsedIp: row.lastUsedIp,
});

const select = {
  id: true,
  userId: true,
  name: true,
  prefix: true,
  role: true,
  scope: true,
  createdAt: true,
  expiresAt: true,
  revokedAt: true,
  lastUsedAt: true,
  lastUsedIp: true,
  user: { select: { username: true } },
} as const;

export type NewApiToken = {
  userId: string;
  name: string;
  secretHash: string;
  prefix: string;
  role: Role | null;
  scope: string;
  createdAt: Date;
  expiresAt: Date;
};

/** Stores a token (its hash only) with its audit event, in one transaction. */
export async function insertApiToken(input: NewApiToken, audit: AuditInput): Promise<ApiTokenRecord> {
  const [row] = await getDb().$transaction([
    getDb().apiToken.create({ data: input, select }),
    getDb().auditEvent.create({ data: auditRow(audit) }),
  ]);
  return toToken(row);
}

/** An account's tokens, newest first; revoked ones too (for the record), expired ones too. */
export async function listApiTokens(userId: string): Promise<ApiTokenRecord[]> {
  const rows = await getDb().apiToken.findMany({ where: { userId }, orderBy: [{ createdAt: "desc" }, { id: "asc" }], select });
  return rows.map(toToken);
}

/** The tokens of several accounts (service accounts on the admin page), newest first. */
export async function listApiTokensOf(userIds: readonly string[]): Promise<ApiTokenRecord[]> {
  if (userIds.length === 0) return [];
  const rows = await getDb().apiToken.findMany({
    where: { userId: { in: [...userIds] } },
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
    select,
  });
  return rows.map(toToken);
}

/** Every account's tokens in force at `now` (neither revoked nor expired), for the Users page; newest first. */
export async function listTokensInForce(now: Date): Promise<ApiTokenRecord[]> {
  const rows = await getDb().apiToken.findMany({
    where: { revokedAt: null, expiresAt: { gt: now } },
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
    select,
  });
  return rows.map(toToken);
}

export async function findApiToken(id: string): Promise<ApiTokenRecord | null> {
  const row = await getDb().apiToken.findUnique({ where: { id }, select });
  return row ? toToken(row) : null;
}

/** What a bearer request needs to decide: the token's limits and state, and its owner with their grants now. */
export type PresentedToken = {
  id: string;
  name: string;
  secretHash: string;
  role: Role | null;
  scope: string;
  expiresAt: Date;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  lastUsedIp: string | null;
  owner: UserRecord;
};

export async function findTokenBySecretHash(secretHash: string): Promise<PresentedToken | null> {
  const row = await getDb().apiToken.findUnique({
    where: { secretHash },
    include: { user: { include: { grants: { select: { role: true, scope: true } } } } },
  });
  if (!row) return null;
  return {
    id: row.id,
    name: row.name,
    secretHash: row.secretHash,
    role: row.role,
    scope: row.scope,
    expiresAt: row.expiresAt,
    revokedAt: row.revokedAt,
    lastUsedAt: row.lastUsedAt,
    lastUsedIp: row.lastUsedIp,
    owner: toRecord(row.user),
  };
}

/**
 * Records a use: at most once a minute per token, or at once from another address than the last
 * recorded one, which is audited. The condition is in the UPDATE, so of several requests arriving
 * together only one writes (and audits).
 */
export async function recordTokenUse(
  token: { id: string; lastUsedIp: string | null },
  ip: string | null,
  now: Date,
  audit: AuditInput,
): Promise<void> {
  const minuteAgo = new Date(now.getTime() - 60_000);
  const newAddress = ip !== null && ip !== token.lastUsedIp;
  await getDb().$transaction(async (tx) => {
    const { count } = await tx.apiToken.updateMany({
      where: newAddress
        ? { id: token.id, OR: [{ lastUsedIp: null }, { lastUsedIp: { not: ip } }] }
        : { id: token.id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: minuteAgo } }] },
      data: { lastUsedAt: now, ...(ip !== null ? { lastUsedIp: ip } : {}) },
    });
    if (count > 0 && newAddress) await tx.auditEvent.create({ data: auditRow(audit) });
  });
}

/** Revokes a live token with its audit event; false when it was revoked already (nothing written). */
export async function revokeApiToken(id: string, now: Date, audit: AuditInput): Promise<boolean> {
  return getDb().$transaction(async (tx) => {
    const { count } = await tx.apiToken.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: now } });
    if (count > 0) await tx.auditEvent.create({ data: auditRow(audit) });
    return count > 0;
  });
}
