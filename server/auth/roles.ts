import { ROLES, type Role } from "../domain/accounts";

export { ROLES, type Role };

/** Who may do what is decided here only. Admins may do everything; other roles are not ranked. */
export function hasRole(role: Role, allowed: readonly Role[] | "any"): boolean {
  return role === "admin" || allowed === "any" || allowed.includes(role);
}

export const ROLE_DESCRIPTIONS: Record<Role, string> = {
  viewer: "Browses fleet skew, readiness and history.",
  technician: "Applies upgrade bundles and requests boot-image acknowledgements.",
  approver: "Vets bundles and approves acknowledgements requested by others.",
  admin: "Everything, including clusters, users and settings.",
};

/**
 * Who may read the contents of a cluster's configuration (its MachineConfigs' files) in previews:
 * admins, who hold the cluster credentials anyway. Everyone else sees paths, verdicts and rules.
 */
export const mayReadClusterConfiguration = (role: Role) => role === "admin";
