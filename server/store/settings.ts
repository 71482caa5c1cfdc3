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
