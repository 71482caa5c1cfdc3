import { auditActor, type Actor } from "./actor";
import { z } from "zod";
import { UserFacingError } from "../errors";
import { createUser, listUsers, replaceGrants, updateUser, UsernameTakenError, type UserChange, type UserRecord } from "../store/users";
import { canonicalGrants, roleOfGrants } from "../domain/grantChanges";
import type { Grant } from "../domain/grants";
import { hashPassword } from "./password";
import { GrantsChangeSchema, NewUserSchema, UserChangeSchema, type UserListEntry } from "./contract";
import { listTokensInForce } from "../store/apiTokens";

export { GrantsChangeSchema, NewUserSchema, PasswordSchema, UserChangeSchema, UsernameSchema } from "./contract";

/** Grants as given, in their stored form; the contract has checked each, this writes them canonically. */
function readGrants(input: readonly { role: string; scope: string }[]): Grant[] {
  const read = canonicalGrants(input);
  if (!read.ok) throw new UserFacingError(400, read.error);
  return read.grants;
}

export { listUsers };

/** Every account with its API tokens in force, for the Users page: a leaked or forgotten token is seen beside its owner. */
export async function listUsersWithTokens(now = new Date()): Promise<UserListEntry[]> {
  const [users, tokens] = await Promise.all([listUsers(), listTokensInForce(now)]);
  const byOwner = new Map<string, typeof tokens>();
  for (const t of tokens) byOwner.set(t.userId, [...(byOwner.get(t.userId) ?? []), t]);
  return users.map((u) => ({
    ...u,
    tokens: (byOwner.get(u.id) ?? []).map((t) => ({
      id: t.id,
      name: t.name,
      expiresAt: t.expiresAt,
      lastUsedAt: t.lastUsedAt,
      lastUsedIp: t.lastUsedIp,
    })),
  }));
}

export async function addUser(input: z.infer<typeof NewUserSchema>, actor: Actor): Promise<UserRecord> {
  if (input.grants && input.role === "admin")
    throw new UserFacingError(400, "An admin holds the whole fleet and no grants; leave grants out, or give another role");
  const grants = input.grants ? readGrants(input.grants) : undefined;
  try {
    return await createUser(
      {
        username: input.username,
        displayName: input.displayName || null,
        // With grants of its own, the account shows the highest of them (roleOfGrants).
        role: grants ? roleOfGrants(grants) : input.role,
        passwordHash: await hashPassword(input.password),
        grants,
      },
      auditActor(actor),
    );
  } catch (error) {
    if (error instanceof UsernameTakenError) throw new UserFacingError(409, error.message);
    throw error;
  }
}

/** Changes a user. An admin cannot lock themselves out, and the last active admin stays an admin. */
export async function changeUser(id: string, input: z.infer<typeof UserChangeSchema>, actor: Actor): Promise<UserRecord> {
  const change: UserChange = {
    role: input.role,
    disabled: input.disabled,
    displayName: input.displayName,
    passwordHash: input.password ? await hashPassword(input.password) : undefined,
  };
  const updated = await updateUser(id, change, auditActor(actor), (current, all) => {
    const losesAdmin =
      current.role === "admin" && !current.disabled && (input.disabled === true || (input.role !== undefined && input.role !== "admin"));
    if (losesAdmin && current.id === actor.user.id) {
      throw new UserFacingError(409, "You cannot disable your own account or remove your own admin role; ask another admin");
    }
    const activeAdmins = all.filter((u) => u.role === "admin" && !u.disabled);
    if (losesAdmin && activeAdmins.length <= 1) {
      throw new UserFacingError(409, `${current.username} is the last active admin; make another user admin first`);
    }
  });
  if (!updated) throw new UserFacingError(404, "No such user");
  return updated;
}

/**
 * Replaces what a person holds. Admins are fleet-wide and hold no grants: their role is changed
 * first (PATCH). People of single sign-on take their grants from their groups at each sign-in.
 */
export async function setGrants(id: string, input: z.infer<typeof GrantsChangeSchema>, actor: Actor): Promise<UserRecord> {
  const result = await replaceGrants(id, readGrants(input.grants), auditActor(actor));
  if (result.outcome === "missing") throw new UserFacingError(404, "No such user");
  if (result.outcome === "admin")
    throw new UserFacingError(
      409,
      `${result.username} is an admin, who holds the whole fleet and no grants; change their role to viewer, technician or approver first`,
    );
  if (result.outcome === "single-sign-on")
    throw new UserFacingError(
      409,
      `${result.username} signs in with single sign-on, whose grants follow their groups at each sign-in; change the group mapping instead`,
    );
  return result.user;
}
