/**
 * Who may do what, and where: a person holds grants, each a role over a scope (server/domain/scope.ts).
 * Admins hold the whole fleet. A token acts as its owner narrowed to a role ceiling and a scope, and
 * never as an approver: approving, releasing and deciding stay with a person's session.
 */
import type { Role } from "./accounts";
import { formatScope, intersectScopes, isWholeFleet, parseScope, type Scope } from "./scope";

/** A role over a scope, as stored and as shown: `technician@clusterSet=edge-emea`. */
export type Grant = { role: Role; scope: string };

/** A grant with its scope read, as access decisions use it. */
export type HeldGrant = Grant & { parsed: Scope };

/** The clusters a principal reaches for some roles: the whole fleet, or any of these scopes. */
export type Reach = { kind: "fleet" } | { kind: "scopes"; anyOf: Scope[] };

export const FLEET_WIDE: Reach = Object.freeze({ kind: "fleet" }) as Reach;
export const NO_CLUSTERS: Reach = Object.freeze({ kind: "scopes", anyOf: [] }) as Reach;

/** What a token narrows its owner to. */
export type TokenLimits = { id: string; name: string; role: Role | null; scope: string };

/** Reads stored grants; one that no longer parses reaches nothing rather than everything. */
export function holdGrants(grants: readonly Grant[]): HeldGrant[] {
  return grants.map((g) => {
    const read = parseScope(g.scope);
    return { ...g, parsed: read.ok ? read.scope : { labels: [], empty: true } };
  });
}

/**
 * The grants a token acts with: each of the owner's grants with its scope intersected with the
 * token's and its role under the token's ceiling. An approver grant only reads through a token
 * (approval stays with a person); a technician grant under a viewer ceiling only reads; an admin
 * grant becomes the ceiling's role, and admin stays fleet-wide, so an admin grant narrowed to a
 * scope is a technician's there.
 */
export function narrowForToken(owner: readonly HeldGrant[], token: TokenLimits): HeldGrant[] {
  const read = parseScope(token.scope);
  const tokenScope: Scope = read.ok ? read.scope : { labels: [], empty: true };
  return owner.map((g) => {
    const parsed = intersectScopes(g.parsed, tokenScope);
    let role: Role = g.role;
    if (role === "approver") role = "viewer";
    else if (role === "admin") role = token.role && token.role !== "admin" ? token.role : isWholeFleet(parsed) ? "admin" : "technician";
    else if (role === "technician" && token.role === "viewer") role = "viewer";
    return { role, parsed, scope: parsed.empty ? "(no cluster)" : formatScope(parsed) };
  });
}

/** Whether a grant's role is one of those asked for ("any": any role at all). Admins hold every role. */
const grantGives = (grant: HeldGrant, roles: readonly Role[] | "any") =>
  grant.role === "admin" || roles === "any" || roles.includes(grant.role);

/** Whether the grants give one of these roles anywhere in the fleet: the check an endpoint makes before it reads its scope. */
export const holdsRole = (grants: readonly HeldGrant[], roles: readonly Role[] | "any") => grants.some((g) => grantGives(g, roles));

/** Whether one of the grants is admin: fleet-wide by definition. */
export const isAdmin = (grants: readonly HeldGrant[]) => grants.some((g) => g.role === "admin" && isWholeFleet(g.parsed));

/** Where these roles reach: the union of the scopes of the grants that give one of them. */
export function reachOf(grants: readonly HeldGrant[], roles: readonly Role[] | "any"): Reach {
  const scopes = grants.filter((g) => grantGives(g, roles) && !g.parsed.empty).map((g) => g.parsed);
  if (scopes.some(isWholeFleet)) return FLEET_WIDE;
  return { kind: "scopes", anyOf: scopes };
}

export const reachesFleet = (reach: Reach) => reach.kind === "fleet";

/** One text per reach, the same for the same clusters: answers shared between people are shared only within one reach. */
export const reachKey = (reach: Reach): string =>
  reach.kind === "fleet" ? "fleet" : JSON.stringify([...new Set(reach.anyOf.filter((s) => !s.empty).map(formatScope))].sort());

/** What a reader reaches: every grant gives reading over its scope. */
export const readReach = (grants: readonly HeldGrant[]): Reach => reachOf(grants, "any");

/** The grants as people read them: `technician@clusterSet=edge-emea`, `viewer` for the whole fleet. */
export const grantLabel = (g: Grant) => (g.scope ? `${g.role}@${g.scope}` : g.role);

/** The grant a new or migrated account starts with: its role over the whole fleet. */
export const fleetGrant = (role: Role): Grant => ({ role, scope: "" });
