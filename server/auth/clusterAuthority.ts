/**
 * Whether an actor may change one cluster, and the words when not: the endpoint gate (actorMay)
 * says the role is held somewhere; here the store answers whether it is held over this cluster.
 * A cluster outside the actor's read reach is missing (404, as if it did not exist); one they read
 * but hold no role over for this write is refused (403) naming the scope they do hold, so a person
 * sees why it is not theirs to change. The grant that allowed a write is recorded in its audit.
 */
import type { Role } from "../domain/accounts";
import { grantLabel, readReach, reachOf, type HeldGrant } from "../domain/grants";
import { scopeMatches } from "../domain/scope";
import { UserFacingError } from "../errors";
import { clustersInReach } from "../store/reach";
import type { Actor } from "./actor";

/** The actor's grants giving one of these roles, as people read them: "technician@clusterSet=edge-emea". */
export function scopeText(actor: Actor, roles: readonly Role[]): string {
  const giving = actor.held.filter((g) => g.role === "admin" || roles.includes(g.role)).map(grantLabel);
  return giving.length ? giving.join(", ") : `no ${roles.join(" or ")} grant`;
}

/** The first grant giving one of the roles over this cluster, by the pure twin of the store's condition. */
export function grantOver(
  held: readonly HeldGrant[],
  roles: readonly Role[],
  cluster: { name: string; platform: string | null; labels: Record<string, string> },
): string | null {
  const g = held.find((h) => (h.role === "admin" || roles.includes(h.role)) && scopeMatches(h.parsed, cluster));
  return g ? grantLabel(g) : null;
}

/**
 * Requires one of the roles over the named cluster; answers the grant that gives it (for the audit).
 * `missing` is the 404's sentence, the same a cluster that does not exist gets.
 */
export async function requireOverCluster(actor: Actor, roles: readonly Role[], cluster: string, missing: string): Promise<string> {
  const [read] = await clustersInReach([cluster], readReach(actor.held));
  if (!read) throw new UserFacingError(404, missing);
  const [held] = await clustersInReach([cluster], reachOf(actor.held, roles));
  if (!held) throw new UserFacingError(403, `${cluster} is outside your scope: ${scopeText(actor, roles)}`);
  return grantOver(actor.held, roles, held) ?? scopeText(actor, roles);
}

/**
 * Why a cluster the actor reads is not theirs to change, for its page ("You may read this cluster,
 * not change it: …"), or null when a technician's writes to it would be allowed.
 */
export async function readOnlyReason(actor: Actor, cluster: string): Promise<string | null> {
  if (actor.held.some((g) => g.role === "admin")) return null;
  const [held] = await clustersInReach([cluster], reachOf(actor.held, ["technician"]));
  if (held) return null;
  const technician = actor.held.some((g) => g.role === "technician");
  return technician
    ? `You may read this cluster, not change it: it is outside your technician scope (${scopeText(actor, ["technician"])})`
    : "You may read this cluster, not change it: changing it needs a technician grant over it";
}
