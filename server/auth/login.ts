import { recordAudit } from "../store/audit";
import { countRecentFailures, recordLoginAttempt } from "../store/loginAttempts";
import { findUserForLogin } from "../store/users";
import type { UserRecord } from "../store/users";
import { decoyHash, verifyPassword } from "./password";
import { startSession } from "./session";

export const LOGIN_WINDOW_MS = 15 * 60_000;
export const MAX_FAILURES_PER_USER = 5;
export const MAX_FAILURES_PER_IP = 30;

export type LoginResult =
  | { ok: true; user: UserRecord; token: string; expiresAt: Date }
  | { ok: false; reason: "invalid" }
  | { ok: false; reason: "rate_limited"; retryAfterSeconds: number };

/**
 * Checks a username and password. Guessing is limited per username and per address across all
 * web processes (the attempts live in Postgres). Unknown users, wrong passwords and disabled
 * accounts get the same answer, and take the same time.
 */
export async function login(
  input: { username: string; password: string; ip: string; userAgent: string | null; ttlHours: number },
  now: Date = new Date(),
): Promise<LoginResult> {
  const username = input.username.trim();
  const since = new Date(now.getTime() - LOGIN_WINDOW_MS);
  const failures = await countRecentFailures(username, input.ip, since);
  const limited = [
    failures.user.count >= MAX_FAILURES_PER_USER ? failures.user.oldest : null,
    failures.ip.count >= MAX_FAILURES_PER_IP ? failures.ip.oldest : null,
  ].filter((d): d is Date => d !== null);
  if (limited.length > 0) {
    const freeAt = Math.max(...limited.map((d) => d.getTime() + LOGIN_WINDOW_MS));
    await recordAudit({ actor: username, action: "session.login", outcome: "denied", ip: input.ip, details: { reason: "rate limited" } });
    return { ok: false, reason: "rate_limited", retryAfterSeconds: Math.max(1, Math.ceil((freeAt - now.getTime()) / 1000)) };
  }

  const user = await findUserForLogin(username);
  const valid = await verifyPassword(input.password, user?.passwordHash ?? (await decoyHash()));
  if (!user || !valid || user.disabled) {
    await recordLoginAttempt({ username, ip: input.ip, succeeded: false });
    await recordAudit({
      actor: username,
      action: "session.login",
      outcome: "failure",
      ip: input.ip,
      details: { reason: !user ? "unknown user" : user.disabled ? "account disabled" : "wrong password" },
    });
    return { ok: false, reason: "invalid" };
  }
  await recordLoginAttempt({ username, ip: input.ip, succeeded: true });
  const { passwordHash: _, ...record } = user;
  const session = await startSession(record, { ip: input.ip, userAgent: input.userAgent, ttlHours: input.ttlHours, now });
  return { ok: true, user: record, ...session };
}
