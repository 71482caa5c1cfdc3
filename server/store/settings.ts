import { auditRow, type AuditInput } from "./audit";
import { getDb } from "./db";
import type { Prisma } from "./generated/prisma/client";

/** Admin settings, one JSON value per key; a change is audited in the same transaction. */
export async function readSetting(key: string): Promise<unknown> {
  const row = await getDb().setting.findUnique({ where: { key } });
  return row?.value ?? null;
}

export async function writeSetting(
  key: string,
  value: unknown,
  actor: Omit<AuditInput, "action" | "targetType" | "targetId">,
): Promise<void> {
  await getDb().$transaction([
    getDb().setting.upsert({
      where: { key },
      create: { key, value: value as Prisma.InputJsonValue, updatedBy: actor.actor },
      update: { value: value as Prisma.InputJsonValue, updatedBy: actor.actor },
    }),
    getDb().auditEvent.create({
      data: auditRow({ ...actor, action: "settings.update", targetType: "setting", targetId: key, details: { value } }),
    }),
  ]);
}
