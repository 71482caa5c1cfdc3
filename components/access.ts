import type { Role, UserRecord } from "@/server/store/users";

/**
 * The signed-in person, as pages hand it to components. `role` is the account's role (the highest
 * its grants give); `roles`, when given, every role its grants give somewhere in the fleet, which
 * is what `can` goes by: a technician of one cluster set is offered a technician's actions (the
 * server then limits them to that set).
 */
export type Me = Pick<UserRecord, "id" | "username" | "role"> & { roles?: readonly Role[] };

/** Whether to offer an action: admins may do everything (the server decides; this only hides what it would refuse). */
export const can = (me: Me, roles: Role[]) => {
  const held = me.roles ?? [me.role];
  return held.includes("admin") || me.role === "admin" || held.some((r) => roles.includes(r));
};

/** What a page hands components: the person with every role their grants give. */
export const meOf = (user: Pick<UserRecord, "id" | "username" | "role" | "grants">): Me => ({
  id: user.id,
  username: user.username,
  role: user.role,
  roles: [...new Set(user.grants.map((g) => g.role))],
});
