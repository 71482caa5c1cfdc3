import type { AuditInput } from "../store/audit";
import type { UserRecord } from "../store/users";

/** The signed-in person behind a write, and where the request came from. */
export type Actor = { user: UserRecord; ip: string | null };

/** Who, with which role and from where, as every audit event records it. */
export const auditActor = (actor: Actor): Pick<AuditInput, "actor" | "role" | "ip"> => ({
  actor: actor.user.username,
  role: actor.user.role,
  ip: actor.ip,
});
