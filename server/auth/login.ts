import type { z } from "zod";
import { UserFacingError } from "../errors";
import {
  admitLoginAttempt,
  clearThrottle,
  clearThrottles,
  countLoginFailure,
  listThrottles,
  reportClosedWindows,
  type ClosedWindow,
  type ThrottleRule,
} from "../store/loginAttempts";
import { normaliseUsername } from "../domain/usernames";
import { findUserForLogin } from "../store/users";
import type { UserRecord } from "../store/users";
import { auditActor, type Actor } from "./actor";
import { ClearThrottleQuery, type SignInLock } from "./contract";
import { decoyHash, verifyPassword } from "./password";
import { startSession } from "./session";
import { passwordSignInPolicy } from "./signInSettings";

export const LOGIN_WINDOW_MS = 15 * 60_000;

/**
 * Per (username, address) and 15-minute window: the first two attempts at once, then a growing
 * wait before each of the next three, then none until the window ends. A person who mistypes twice
 * barely notices; a guesser gets five tries per window from each address.
 */
export const SIGN_IN_THROTTLE: ThrottleRule = {
  windowMs: LOGIN_WINDOW_MS,
  maxAttempts: 5,
  delaysMs: [0, 0, 5_000, 15_000, 45_000],
};
export const MAX_FAILURES_PER_USER = SIGN_IN_THROTTLE.maxAttempts;

export type LoginResult =
  | { ok: true; user: UserRecord; token: string; expiresAt: Date }
  | { ok: false; reason: "invalid" }
  | { ok: false; reason: "local-off" }
  | { ok: false; reason: "rate_limited"; retryAfterSeconds: number; locked: boolean };

/** The start of the fixed window an event falls in, for counting failures per address. */
const windowOf = (now: Date) => new Date(Math.floor(now.getTime() / LOGIN_WINDOW_MS) * LOGIN_WINDOW_MS);

async function countFailure(input: { username: string; ip: string; now: Date }, outcome: "failure" | "refused", reason: string) {
  await countLoginFailure(
    { ...input, outcome, windowStart: windowOf(input.now) },
    {
      actor: input.username,
      action: "session.login",
      outcome: outcome === "failure" ? "failure" : "denied",
      ip: input.ip,
      details: {
        reason,
        aggregated: "further failed and refused sign-ins from this address in this 15-minute window are reported together",
      },
    },
  );
}

/**
 * Checks a username and password. Guessing is limited per (username, address) across all web
 * processes, atomically. Unknown users, wrong passwords and disabled accounts get the same answer
 * and take the same time.
 */
export async function login(
  input: { username: string; password: string; ip: string; userAgent: string | null; ttlHours: number },
  now: Date = new Date(),
): Promise<LoginResult> {
  // NFKC: a fullwidth or ligature spelling of a name is that name, for the account and for its throttle.
  const username = normaliseUsername(input.username);
  const admission = await admitLoginAttempt(username, input.ip, now, SIGN_IN_THROTTLE);
  if (!admission.admitted) {
    await countFailure({ username, ip: input.ip, now }, "refused", admission.reason === "locked" ? "locked" : "slowed down");
    return {
      ok: false,
      reason: "rate_limited",
      retryAfterSeconds: Math.max(1, Math.ceil(admission.retryAfterMs / 1000)),
      locked: admission.reason === "locked",
    };
  }

  // With password sign-in off, every name gets the same answer in the same time: the same lookup
  // and scrypt for all, and one refusal whether the name is the break-glass account (with a wrong
  // password), another account, or nobody. Only the right password of the break-glass account signs in.
  const policy = await passwordSignInPolicy();
  const allowed = policy.everyone || policy.breakGlassAccount === username;
  const found = await findUserForLogin(username);
  const user = allowed ? found : null;
  // Accounts of single sign-on and service accounts have no password (an empty hash): checked
  // against the decoy, and refused alike; a service account never signs in, whatever its hash.
  const valid = await verifyPassword(input.password, user?.passwordHash || (await decoyHash()));
  if (!user || !valid || user.disabled || !user.passwordHash || user.authSource === "service") {
    const reason = !allowed
      ? "password sign-in turned off"
      : !user
        ? "unknown user"
        : user.disabled
          ? "account disabled"
          : user.authSource === "service"
            ? "service account"
            : !user.passwordHash
              ? "single sign-on account"
              : "wrong password";
    await countFailure({ username, ip: input.ip, now }, "failure", reason);
    return { ok: false, reason: policy.everyone ? "invalid" : "local-off" };
  }
  await clearThrottle(username, input.ip);
  const { passwordHash: _, ...record } = user;
  const session = await startSession(record, { ip: input.ip, userAgent: input.userAgent, ttlHours: input.ttlHours, now });
  return { ok: true, user: record, ...session };
}

const wait = (seconds: number) => {
  if (seconds < 120) return `${seconds} second${seconds === 1 ? "" : "s"}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? "" : "s"}`;
};

/** The answer to a refused sign-in, as people and scripts read it. */
export function signInRefusal(result: Exclude<LoginResult, { ok: true }>): UserFacingError {
  if (result.reason === "invalid") return new UserFacingError(401, "Wrong username or password");
  if (result.reason === "local-off")
    return new UserFacingError(403, "Sign-in with a password is turned off here; use single sign-on (the button above the form)");
  const message = result.locked
    ? `Too many failed sign-ins for this username from your address; try again in ${wait(result.retryAfterSeconds)}, or ask an admin to clear the lock`
    : `Several failed sign-ins for this username from your address; wait ${wait(result.retryAfterSeconds)} before trying again`;
  return new UserFacingError(429, message, { "retry-after": String(result.retryAfterSeconds) });
}

/** Signs in or throws the refusal (401, 429 with Retry-After). */
export async function signIn(input: Parameters<typeof login>[0]): Promise<Extract<LoginResult, { ok: true }>> {
  const result = await login(input);
  if (!result.ok) throw signInRefusal(result);
  return result;
}

export type SignInThrottle = SignInLock;

/** Sign-in throttles in force, for the users page: who is slowed down or locked, from where, until when. */
export async function signInThrottles(now: Date = new Date()): Promise<SignInThrottle[]> {
  return (await listThrottles(now, SIGN_IN_THROTTLE.windowMs)).flatMap((t) => {
    const locked = t.attempts >= SIGN_IN_THROTTLE.maxAttempts;
    const until = locked
      ? new Date(t.windowStartedAt).getTime() + SIGN_IN_THROTTLE.windowMs
      : new Date(t.lastAttemptAt).getTime() + (SIGN_IN_THROTTLE.delaysMs[t.attempts] ?? 0);
    if (until <= now.getTime()) return [];
    return [{ ...t, state: locked ? ("locked" as const) : ("slowed" as const), until: new Date(until).toISOString() }];
  });
}

export { ClearThrottleQuery };

/** An admin lifts the throttle on a username, from one address or all of them. */
export async function clearSignInThrottle(input: z.infer<typeof ClearThrottleQuery>, actor: Actor): Promise<{ cleared: number }> {
  const cleared = await clearThrottles(input.username, input.address, {
    ...auditActor(actor),
    action: "session.unlock",
    targetType: "user",
    targetId: input.username,
    summary: `cleared the sign-in lock of ${input.username}${input.address ? ` from ${input.address}` : " from every address"}`,
    details: { address: input.address ?? null },
  });
  return { cleared };
}

/** One audit event per address and closed window with what was not reported one by one. */
export function closedWindowEvent(w: ClosedWindow) {
  const failures = w.failures - Math.min(w.reported, w.failures);
  const refused = w.refused - Math.max(0, w.reported - w.failures);
  if (failures + refused <= 0) return null;
  const parts = [failures ? `${failures} failed` : "", refused ? `${refused} refused` : ""].filter(Boolean).join(" and ");
  return {
    actor: null,
    action: "session.login",
    outcome: refused ? ("denied" as const) : ("failure" as const),
    ip: w.ip,
    summary: `${parts} sign-in attempt${failures + refused === 1 ? "" : "s"} from ${w.ip} between ${w.firstAt.toISOString()} and ${w.lastAt.toISOString()} (usernames: ${w.usernames.join(", ")})`,
    details: {
      failures,
      refused,
      usernames: w.usernames,
      from: w.firstAt.toISOString(),
      to: w.lastAt.toISOString(),
      window: w.windowStart.toISOString(),
    },
  };
}

/** Reports the sign-in windows that have closed; housekeeping runs it. */
export async function reportSignInWindows(now: Date = new Date()): Promise<number> {
  return reportClosedWindows(windowOf(now), closedWindowEvent);
}
