/**
 * Each cluster's maintenance window, frozen when its rollout is approved: resolved from the labels
 * the approver's plan digest covered, and kept on the cluster's row, so a label changed afterwards
 * does not move the cluster to another window.
 */
import { z } from "zod";
import { canonicalJson } from "../domain/rollouts/digest";
import { windowForLabels, type MaintenanceWindow, type RolloutWindows } from "../domain/rollouts/windows";
import { Prisma } from "./generated/prisma/client";
import { getDb } from "./db";
import { storedTime } from "./fleet";

const FrozenWindow = z.strictObject({ schedule: z.string(), durationMs: z.number().min(0), timeZone: z.string() }).nullable();

/** A frozen window as stored (null: the cluster has none); a value that does not decode is refused, not guessed. */
export function decodeFrozenWindow(stored: unknown): MaintenanceWindow | null {
  const parsed = FrozenWindow.safeParse(stored);
  if (!parsed.success) throw new Error(`a frozen maintenance window cannot be read: ${parsed.error.issues[0]!.message}`);
  return parsed.data;
}

/** The window frozen for a cluster of a rollout: null for none, undefined when nothing was frozen (not approved yet). */
export async function frozenWindowOf(rolloutId: string, clusterName: string): Promise<MaintenanceWindow | null | undefined> {
  const row = await getDb().rolloutCluster.findUnique({
    where: { rolloutId_clusterName: { rolloutId, clusterName } },
    select: { frozenWindow: true, windowFrozenAt: true },
  });
  return row?.windowFrozenAt ? decodeFrozenWindow(row.frozenWindow) : undefined;
}

/**
 * Freezes the windows of `clusters` (each with its value of the windows' label, null when it has
 * none), one update per distinct window, inside the approval's transaction.
 */
export async function freezeWindows(
  tx: Prisma.TransactionClient,
  rolloutId: string,
  windows: RolloutWindows | undefined,
  clusters: { name: string; labelValue: string | null }[],
  at: Date,
): Promise<void> {
  const groups = new Map<string, { window: MaintenanceWindow | null; names: string[] }>();
  for (const c of clusters) {
    const labels = windows?.label && c.labelValue !== null ? { [windows.label]: c.labelValue } : {};
    const window = windowForLabels(windows, labels);
    const key = canonicalJson(window);
    const group = groups.get(key) ?? { window, names: [] };
    group.names.push(c.name);
    groups.set(key, group);
  }
  for (const { window, names } of groups.values())
    await tx.$executeRawUnsafe(
      `UPDATE "RolloutCluster" SET "frozenWindow" = $2::jsonb, "windowFrozenAt" = $3::timestamp
        WHERE "rolloutId" = $1::uuid AND "clusterName" = ANY($4::text[])`,
      rolloutId,
      window === null ? null : JSON.stringify(window),
      storedTime(at),
      names,
    );
}
