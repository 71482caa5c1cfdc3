import { holdGrants, narrowForToken, type HeldGrant, type TokenLimits } from "../domain/grants";
import type { AuditInput } from "../store/audit";
import type { UserRecord } from "../store/users";

/**
 * Who is behind a request and what they act with: the person (or service account), where the
 * request came from, the grants it holds (narrowed to a token's limits when it came with a token)
 * and that token.
 */
export type Actor = { user: UserRecord; ip: string | null; held: HeldGrant[]; token: TokenLimits | null };

/** The actor of a request: the account's grants, narrowed to the token's when one was used. */
export function actorFor(user: UserRecord, ip: string | null, token: TokenLimits | null = null): Actor {
  const held = holdGrants(user.grants);
  return { user, ip, token, held: token ? narrowForToken(held, token) : held };
}

/** Who, with which role and from where, as every audit event records it; a token is named in the role. */
export const auditActor = (actor: Actor, grant?: string): Pick<AuditInput, "actor" | "role" | "ip" | "grant"> => ({
  actor: actor.user.username,
  role: actor.token ? `${actor.user.role} (token ${actor.token.name})` : actor.user.role,
  ip: actor.ip,
  // The grant the write was allowed by, where it was made on clusters (details.grant).
  ...(grant ? { grant } : {}),
});
