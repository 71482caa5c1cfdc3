import { getDb } from "./db";

/** Number of applied migrations; throws when the database cannot be reached. */
export async function appliedMigrationCount(): Promise<number> {
  const rows = await getDb().$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
  return rows[0]?.n ?? 0;
}
