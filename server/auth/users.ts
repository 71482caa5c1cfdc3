import { auditActor, type Actor } from "./actor";
import { z } from "zod";
import { UserFacingError } from "../errors";
import { createUser, listUsers, updateUser, UsernameTakenError, type UserChange, type UserRecord } from "../store/users";
import { hashPassword } from "./password";
import { NewUserSchema, UserChangeSchema } from "./contract";

export { NewUserSchema, PasswordSchema, UserChangeSchema, UsernameSchema } from "./contract";

export { listUsers };

export async function addUser(input: z.infer<typeof NewUserSchema>, actor: Actor): Promise<UserRecord> {
  try {
    return await createUser(
      {
        username: input.username,
        displayName: input.displayName || null,
        role: input.role,
        passwordHash: await hashPassword(input.password),
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
