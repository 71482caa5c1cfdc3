import { auditRow, type AuditInput } from "./audit";
import { getDb } from "./db";
import { toRecord, type UserRecord } from "./users";

export type ServiceAccountRecord = UserRecord & { createdBy: string | null };

const withGrants = { grants: { select: { role: true, scope: true } } } as const;

const toServiceAccount = (row: Parameters<typeof toRecord>[0] & { createdBy: string | null }): ServiceAccountRecord => ({
  ...toRecord(row),
  createdBy: row.createdBy,
});

export async function listServiceAccounts(): Promise<ServiceAccountRecord[]> {
  const rows = await getDb().user.findMany({ where: { authSource: "service" }, orderBy: { username: "asc" }, include: withGrants });
  return rows.map(toServiceAccount);
}

export async function findServiceAccount(id: string): Promise<ServiceAccountRecord | null> {
  const row = await getDb().user.findFirst({ where: { id, authSource: "service" }, include: withGrants });
  return row ? toServiceAccount(row) : null;
}

/**
 * Disables a service account and revokes every live token of it, with the audit event, in one
 * transaction; null when there is no such service account. Disabling one already disabled revokes
 * anything left and records nothing new.
 */
export async function disableServiceAccount(
  id: string,
  now: Date,
  audit: Omit<AuditInput, "action">,
): Promise<ServiceAccountRecord | null> {
  return getDb().$transaction(async (tx) => {
    const row = await tx.user.findFirst({ where: { id, authSource: "service" } });
    if (!row) return null;
    const { count } = await tx.apiToken.updateMany({ where: { userId: id, revokedAt: null }, data: { revokedAt: now } });
    if (!row.disabledAt || count > 0) {
      await tx.user.update({ where: { id }, data: { disabledAt: row.disabledAt ?? now } });
      await tx.auditEvent.create({
        data: auditRow({ ...audit, action: "service-account.disable", details: { ...audit.details, tokensRevoked: count } }),
      });
    }
    const updated = await tx.user.findUniqueOrThrow({ where: { id }, include: withGrants });
    return toServiceAccount(updated);
  });
}
