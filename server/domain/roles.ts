/** The roles a person may hold; who may do what is decided in server/auth/roles.ts. */
export const ROLES = ["viewer", "technician", "approver", "admin"] as const;
export type Role = (typeof ROLES)[number];
