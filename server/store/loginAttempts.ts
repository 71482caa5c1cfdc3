import { auditRow, type AuditInput } from "./audit";
import { getDb } from "./db";

/**
 * Sign-in throttling, per (username, address). The decision to judge an attempt and the count of
 * attempts are one step under the key's row lock, so any number of attempts at once, in any number
 * of processes, cannot judge more than the limit allows.
 */
export type ThrottleRule = {
  windowMs: number;
  /** Attempts judged per key and window; the next is refused until the window ends. */
  maxAttempts: number;
  /** The wait before the nth attempt of a window (index n-1), measured from the previous one. */
  delaysMs: readonly number[];
};

export type Admission = { admitted: true } | { admitted: false; reason: "slow-down" | "locked"; retryAfterMs: number; attempts: number };

/**
 * Admits one attempt for (username, ip) or refuses it. An admitted attempt counts at once, before
 * it is judged; a successful sign-in then clears the key (clearThrottle).
 */
export async function admitLoginAttempt(username: string, ip: string, now: Date, rule: ThrottleRule): Promise<Admission> {
  return getDb().$transaction(async (tx) => {
    await tx.$executeRaw`
      INSERT INTO "LoginThrottle" ("username", "ip", "windowStartedAt", "attempts", "lastAttemptAt")
      VALUES (${username}, ${ip}, ${now}, 0, ${now})
      ON CONFLICT ("username", "ip") DO NOTHING`;
    const [row] = await tx.$queryRaw<{ windowStartedAt: Date; attempts: number; lastAttemptAt: Date }[]>`
      SELECT "windowStartedAt", "attempts", "lastAttemptAt" FROM "LoginThrottle"
      WHERE "username" = ${username} AND "ip" = ${ip} FOR UPDATE`;
    let { windowStartedAt, attempts } = row!;
    if (now.getTime() - windowStartedAt.getTime() >= rule.windowMs) {
      windowStartedAt = now;
      attempts = 0;
    }
    if (attempts >= rule.maxAttempts) {
      return { admitted: false, reason: "locked", retryAfterMs: windowStartedAt.getTime() + rule.windowMs - now.getTime(), attempts };
    }
    const wait = rule.delaysMs[attempts] ?? 0;
    const readyAt = row!.lastAttemptAt.getTime() + wait;
    if (attempts > 0 && now.getTime() < readyAt) {
      return { admitted: false, reason: "slow-down", retryAfterMs: readyAt - now.getTime(), attempts };
    }
    await tx.$executeRaw`
      UPDATE "LoginThrottle" SET "windowStartedAt" = ${windowStartedAt}, "attempts" = ${attempts + 1}, "lastAttemptAt" = ${now}
      WHERE "username" = ${username} AND "ip" = ${ip}`;
    return { admitted: true };
  });
}

/** A successful sign-in forgets the key's earlier failures. */
export async function clearThrottle(username: string, ip: string): Promise<void> {
  await getDb().loginThrottle.deleteMany({ where: { username, ip } });
}

export type ThrottleRecord = { username: string; ip: string; attempts: number; windowStartedAt: string; lastAttemptAt: string };

/** Keys with attempts in a window that has not ended, most recent first. */
export async function listThrottles(now: Date, windowMs: number): Promise<ThrottleRecord[]> {
  const rows = await getDb().loginThrottle.findMany({
    where: { windowStartedAt: { gt: new Date(now.getTime() - windowMs) }, attempts: { gt: 0 } },
    orderBy: { lastAttemptAt: "desc" },
    take: 500,
  });
  return rows.map((r) => ({
    username: r.username,
    ip: r.ip,
    attempts: r.attempts,
    windowStartedAt: r.windowStartedAt.toISOString(),
    lastAttemptAt: r.lastAttemptAt.toISOString(),
  }));
}

/** An admin clears the throttle of a username (from one address, or all), audited in the same transaction. */
export async function clearThrottles(username: string, ip: string | undefined, audit: AuditInput): Promise<number> {
  const where = { username, ...(ip ? { ip } : {}) };
  const [deleted] = await getDb().$transaction([
    getDb().loginThrottle.deleteMany({ where }),
    getDb().auditEvent.create({ data: auditRow(audit) }),
  ]);
  return deleted.count;
}

/**
 * Counts a failed or refused sign-in in its address's window. The window's first event is written
 * to the audit log at once (a person who mistyped shows up immediately); the rest are counted and
 * reported together by reportClosedWindows.
 */
export async function countLoginFailure(
  input: { ip: string; username: string; outcome: "failure" | "refused"; windowStart: Date; now: Date },
  firstEvent: AuditInput,
): Promise<void> {
  const failures = input.outcome === "failure" ? 1 : 0;
  const refused = input.outcome === "refused" ? 1 : 0;
  await getDb().$transaction(async (tx) => {
    const [row] = await tx.$queryRaw<{ total: number; reported: number }[]>`
      INSERT INTO "LoginFailureWindow" ("ip", "windowStart", "failures", "refused", "usernames", "firstAt", "lastAt")
      VALUES (${input.ip}, ${input.windowStart}, ${failures}, ${refused}, ARRAY[${input.username}]::text[], ${input.now}, ${input.now})
      ON CONFLICT ("ip", "windowStart") DO UPDATE SET
        "failures" = "LoginFailureWindow"."failures" + ${failures},
        "refused" = "LoginFailureWindow"."refused" + ${refused},
        "usernames" = CASE
          WHEN ${input.username} = ANY("LoginFailureWindow"."usernames") OR cardinality("LoginFailureWindow"."usernames") >= 20
          THEN "LoginFailureWindow"."usernames"
          ELSE array_append("LoginFailureWindow"."usernames", ${input.username}) END,
        "lastAt" = ${input.now}
      RETURNING ("failures" + "refused")::int AS "total", "reported"`;
    if (row!.total === 1 && row!.reported === 0) {
      await tx.auditEvent.create({ data: auditRow(firstEvent) });
      await tx.$executeRaw`UPDATE "LoginFailureWindow" SET "reported" = 1 WHERE "ip" = ${input.ip} AND "windowStart" = ${input.windowStart}`;
    }
  });
}

export type ClosedWindow = {
  ip: string;
  windowStart: Date;
  failures: number;
  refused: number;
  reported: number;
  usernames: string[];
  firstAt: Date;
  lastAt: Date;
};

/**
 * Reports every window that ended before `before`: one audit event per address and window with
 * what was not reported yet, written and removed in one transaction (rows locked, skipped when
 * another process is reporting them), so each window is reported exactly once.
 */
export async function reportClosedWindows(before: Date, eventOf: (w: ClosedWindow) => AuditInput | null): Promise<number> {
  return getDb().$transaction(async (tx) => {
    const rows = await tx.$queryRaw<ClosedWindow[]>`
      SELECT "ip", "windowStart", "failures", "refused", "reported", "usernames", "firstAt", "lastAt"
      FROM "LoginFailureWindow" WHERE "windowStart" < ${before}
      ORDER BY "windowStart" LIMIT 1000 FOR UPDATE SKIP LOCKED`;
    let written = 0;
    for (const row of rows) {
      const event = eventOf(row);
      if (event) {
        await tx.auditEvent.create({ data: auditRow(event) });
        written++;
      }
      await tx.$executeRaw`DELETE FROM "LoginFailureWindow" WHERE "ip" = ${row.ip} AND "windowStart" = ${row.windowStart}`;
    }
    return written;
  });
}

/** Keys whose window ended long ago: nothing of them is needed any more. */
export async function pruneThrottles(before: Date): Promise<number> {
  const { count } = await getDb().loginThrottle.deleteMany({ where: { lastAttemptAt: { lt: before } } });
  return count;
}
