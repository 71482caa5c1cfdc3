import { auditRow, type AuditInput } from "./audit";
import { getDb } from "./db";
import type { SignInMethod } from "../domain/accounts";
import { toRecord, type UserRecord } from "./users";

export type { SignInMethod } from "../domain/accounts";

export type SessionRecord = { id: string; user: UserRecord; expiresAt: Date; lastSeenAt: Date; method: SignInMethod };

export type NewSession = {
  tokenHash: string;
  userId: string;
  expiresAt: Date;
  ip: string | null;
  userAgent: string | null;
  method?: SignInMethod;
};

export async function insertSession(input: NewSession, audit: AuditInput): Promise<void> {
  await getDb().$transaction([
    getDb().session.create({ data: input }),
    getDb().user.update({ where: { id: input.userId }, data: { lastSignInAt: new Date() } }),
    getDb().auditEvent.create({ data: auditRow(audit) }),
  ]);
}

/** The live session for a token hash, with its user; null when expired, missing or the user is disabled. */
export async function findLiveSession(tokenHash: string, now: Date): Promise<SessionRecord | null> {
  const row = await getDb().session.findUnique({
    where: { tokenHash },
    include: { user: { include: { grants: { select: { role: true, scope: true } } } } },
  });
  if (!row || row.expiresAt <= now || row.user.disabledAt) return null;
  return {
    id: row.id,
    expiresAt: row.expiresAt,
    lastSeenAt: row.lastSeenAt,
    method: row.method,
    user: toRecord(row.user),
  };
}

export async function touchSession(id: string, now: Date): Promise<void> {
  await getDb().session.updateMany({ where: { id }, data: { lastSeenAt: now } });
}

export async function deleteSession(tokenHash: string, audit: AuditInput): Promise<boolean> {
  const [deleted] = await getDb().$transaction([
    getDb().session.deleteMany({ where: { tokenHash } }),
    getDb().auditEvent.create({ data: auditRow(audit) }),
  ]);
  return deleted.count > 0;
}

export async function deleteExpiredSessions(now: Date): Promise<number> {
  const { count } = await getDb().session.deleteMany({ where: { expiresAt: { lte: now } } });
  return count;
}
