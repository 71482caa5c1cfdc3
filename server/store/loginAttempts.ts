import { getDb } from "./db";

export async function recordLoginAttempt(input: { username: string; ip: string; succeeded: boolean }): Promise<void> {
  await getDb().loginAttempt.create({ data: input });
}

/** Failed attempts since `since`, by username and by address, with the oldest of each (for Retry-After). */
export async function countRecentFailures(username: string, ip: string, since: Date) {
  const db = getDb();
  const [byUser, byIp] = await Promise.all([
    db.loginAttempt.aggregate({ where: { username, succeeded: false, at: { gt: since } }, _count: true, _min: { at: true } }),
    db.loginAttempt.aggregate({ where: { ip, succeeded: false, at: { gt: since } }, _count: true, _min: { at: true } }),
  ]);
  return {
    user: { count: byUser._count, oldest: byUser._min.at },
    ip: { count: byIp._count, oldest: byIp._min.at },
  };
}

export async function pruneLoginAttempts(before: Date): Promise<number> {
  const { count } = await getDb().loginAttempt.deleteMany({ where: { at: { lt: before } } });
  return count;
}
