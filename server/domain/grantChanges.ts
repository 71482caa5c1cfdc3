/**
 * Giving grants: what an admin or a single sign-on mapping may hand a person, read into the one
 * stored form. Admin is no grant (it is fleet-wide, set as the account's role), so a grant's role is
 * viewer, technician or approver, and its scope is kept as formatScope writes it so that the same
 * clusters always read the same and duplicates can be told apart.
 */
import type { Role } from "./accounts";
import type { Grant } from "./grants";
import { parseScope } from "./scope";

export const GRANTABLE_ROLES = ["viewer", "technician", "approver"] as const;
export type GrantableRole = (typeof GRANTABLE_ROLES)[number];

/** More than this is a list nobody can review on the Users page; teams are better as cluster sets. */
export const MAX_GRANTS = 50;

/** The most rights first: the role an account shows when it holds several. */
const PRECEDENCE: readonly Role[] = ["admin", "approver", "technician", "viewer"];

export type GrantsResult = { ok: true; grants: Grant[] } | { ok: false; error: string };

/**
 * Reads grants as given: every scope parsed and written back canonically, duplicates collapsed,
 * sorted as the store lists them. The first bad entry is named by its place in the list.
 */
export function canonicalGrants(input: readonly { role: string; scope: string }[]): GrantsResult {
  if (input.length > MAX_GRANTS)
    return { ok: false, error: `A person holds at most ${MAX_GRANTS} grants; group clusters into a cluster set instead` };
  const seen = new Map<string, Grant>();
  for (const [i, g] of input.entries()) {
    if (!(GRANTABLE_ROLES as readonly string[]).includes(g.role))
      return {
        ok: false,
        error: `grants.${i}.role: "${String(g.role).slice(0, 40)}" cannot be granted over a scope; grant ${GRANTABLE_ROLES.join(", ")} (admin is set as the account's role and covers the whole fleet)`,
      };
    const read = parseScope(g.scope);
    if (!read.ok) return { ok: false, error: `grants.${i}.scope: ${read.error}` };
    const grant: Grant = { role: g.role as Role, scope: read.text };
    seen.set(`${grant.role}@${grant.scope}`, grant);
  }
  return { ok: true, grants: sortGrants([...seen.values()]) };
}

export const sortGrants = (grants: Grant[]): Grant[] =>
  [...grants].sort((a, b) => a.role.localeCompare(b.role) || a.scope.localeCompare(b.scope));

/**
 * The role an account shows (User.role) when it holds these grants: the one with the most rights,
 * approver > technician > viewer, or viewer when it holds none. What a person may do is decided by
 * the grants themselves; this keeps the places that show one role (lists, the audit log's "role")
 * meaningful.
 */
export function roleOfGrants(grants: readonly Grant[]): Role {
  const roles = grants.map((g) => g.role);
  return PRECEDENCE.find((r) => roles.includes(r)) ?? "viewer";
}

/** Whether two grant lists hold the same (order aside). */
export const sameGrants = (a: readonly Grant[], b: readonly Grant[]): boolean => {
  const key = (gs: readonly Grant[]) => JSON.stringify(sortGrants([...gs]).map((g) => [g.role, g.scope]));
  return key(a) === key(b);
};
