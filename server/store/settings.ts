import { auditRow, type AuditInput } from "./audit";
import { getDb } from "./db";
import type { Prisma } from "./generated/prisma/client";

/** Admin settings, one JSON value per key; a change is audited in the same transaction. */
export async function readSetting(key: string): Promise<unknown> {
  const row = await getDb().setting.findUnique({ where: { key } });
  return row?.value ?? null;
}

/** The audit event records the new value, or `shownDetails` instead when the value holds a secret. */
export async function writeSetting(
  key: string,
  value: unknown,
  actor: Omit<AuditInput, "action" | "targetType" | "targetId">,
  shownDetails?: Record<string, unknown>,
): Promise<void> {
  await getDb().$transaction([
    getDb().setting.upsert({
      where: { key },
      create: { key, value: value as Prisma.InputJsonValue, updatedBy: actor.actor },
      update: { value: value as Prisma.InputJsonValue, updatedBy: actor.actor },
    }),
    getDb().auditEvent.create({
      data: auditRow({ ...actor, action: "settings.update", targetType: "setting", targetId: key, details: shownDetails ?? { value } }),
    }),
  ]);
}

/**
 * Saves a setting that turns password sign-in off, and ends every session opened with a password
 * except those of `keep` (the break-glass account), in one transaction: nobody keeps a way in that
 * the setting just closed. Answers how many sessions ended.
 */
export async function writeSettingEndingPasswordSessions(
  key: string,
  value: unknown,
  actor: Omit<AuditInput, "action" | "targetType" | "targetId">,
  keep: string | null,
): Promise<number> {
  return getDb().$transaction(async (tx) => {
    await tx.setting.upsert({
      where: { key },
      create: { key, value: value as Prisma.InputJsonValue, updatedBy: actor.actor },
      update: { value: value as Prisma.InputJsonValue, updatedBy: actor.actor },
    });
    await tx.auditEvent.create({
      data: auditRow({ ...actor, action: "settings.update", targetType: "setting", targetId: key, details: { value } }),
    });
    const { count } = await tx.session.deleteMany({
      where: { method: "password", ...(keep === null ? {} : { user: { username: { not: keep } } }) },
    });
    if (count > 0)
      await tx.auditEvent.create({
        data: auditRow({
          ...actor,
          action: "session.logout",
          targetType: "session",
          targetId: "password",
          summary: `ended ${count} password session${count === 1 ? "" : "s"}: password sign-in turned off${keep ? ` (except ${keep}, the break-glass account)` : ""}`,
          details: { count, keep },
        }),
      });
    return count;
  });
}
