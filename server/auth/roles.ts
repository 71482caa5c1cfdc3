import { ROLES, type Role } from "../domain/accounts";
import { grantLabel, holdsRole } from "../domain/grants";
import type { Actor } from "./actor";

export { ROLES, type Role };

/** Whether one role is among those allowed. Admins may do everything; other roles are not ranked. */
export function hasRole(role: Role, allowed: readonly Role[] | "any"): boolean {
  return role === "admin" || allowed === "any" || allowed.includes(role);
}

/**
 * Who may call what is decided here only: an actor may use an endpoint or page when one of its
 * grants (narrowed to its token's limits) gives one of the roles allowed, somewhere in the fleet.
 * Where in the fleet is then the store's business: each query is limited to the grants' scopes.
 */
export const actorMay = (actor: Actor, allowed: readonly Role[] | "any"): boolean =>
  // "any" is any signed-in person, one who holds no grant too: they may sign in and see that they
  // reach no cluster (every read is limited to their grants' scopes, none).
  allowed === "any" || holdsRole(actor.held, allowed);

/** The actor's grants as a person reads them: "technician@clusterSet=edge-emea, viewer". */
export const heldLabel = (actor: Actor): string => actor.held.map(grantLabel).join(", ") || "no grant";

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
