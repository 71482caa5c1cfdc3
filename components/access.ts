import type { Role, UserRecord } from "@/server/store/users";

/** The signed-in person, as pages hand it to components. */
export type Me = Pick<UserRecord, "id" | "username" | "role">;

/** Whether to offer an action: admins may do everything (the server decides; this only hides what it would refuse). */
export const can = (me: Me, roles: Role[]) => me.role === "admin" || roles.includes(me.role);
