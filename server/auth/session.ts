import { createHash, randomBytes } from "node:crypto";
import { deleteSession, findLiveSession, insertSession, touchSession, type SessionRecord } from "../store/sessions";
import type { UserRecord } from "../store/users";

export const SESSION_COOKIE = "fleetskew_session";

/** The cookie's name: over https with the `__Host-` prefix, which browsers accept only from this origin over https. */
export const sessionCookieName = (https: boolean) => (https ? `__Host-${SESSION_COOKIE}` : SESSION_COOKIE);

export const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

export async function startSession(
  user: UserRecord,
  meta: { ip: string | null; userAgent: string | null; ttlHours: number; now?: Date },
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString("base64url");
  const now = meta.now ?? new Date();
  const expiresAt = new Date(now.getTime() + meta.ttlHours * 3_600_000);
  await insertSession(
    {
      tokenHash: hashToken(token),
      userId: user.id,
      expiresAt,
      ip: meta.ip,
      userAgent: meta.userAgent?.slice(0, 300) ?? null,
      method: "password",
    },
    {
      actor: user.username,
      role: user.role,
      action: "session.login",
      targetType: "user",
      targetId: user.username,
      ip: meta.ip,
      details: { method: "password" },
    },
  );
  return { token, expiresAt };
}

/** The live session for a token (a cookie value, or a proxy's identity), or null. */
export async function sessionForToken(token: string | undefined, now: Date = new Date()): Promise<SessionRecord | null> {
  if (!token || token.length > 200) return null;
  const session = await findLiveSession(hashToken(token), now);
  if (!session) return null;
  // Record activity at most once a minute, not on every request.
  if (now.getTime() - session.lastSeenAt.getTime() > 60_000) await touchSession(session.id, now);
  return session;
}

/** The signed-in user for a cookie value, or null. */
export async function userForToken(token: string | undefined, now: Date = new Date()): Promise<UserRecord | null> {
  return (await sessionForToken(token, now))?.user ?? null;
}

export async function endSession(token: string, user: UserRecord, ip: string | null): Promise<void> {
  await deleteSession(hashToken(token), {
    actor: user.username,
    role: user.role,
    action: "session.logout",
    targetType: "user",
    targetId: user.username,
    ip,
  });
}
