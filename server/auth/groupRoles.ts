import type { RoleMapping } from "../config/sso";
import { roleOfGrants, sortGrants } from "../domain/grantChanges";
import type { Grant } from "../domain/grants";
import type { Role } from "../store/users";

/** What a person's groups give them: admin (fleet-wide), or the grants of every mapped group. */
export type GroupAccess = {
  /** The role the account shows: admin when a group gives it, else the highest of the grants. */
  role: Role;
  /** The union of every matching group's grants, duplicates collapsed; none for an admin. */
  grants: Grant[];
  /** The group that gave the role shown (for the audit log). */
  group: string;
  /** Every group of theirs that is mapped. */
  groups: string[];
};

/**
 * What a person's groups give under the mapping: the union of every matching entry's grant (a
 * technician of edge-emea who is also a viewer of the whole fleet holds both), or admin when one
 * of them gives admin. Null when none of their groups is mapped (the sign-in is then refused).
 */
export function roleForGroups(groups: readonly string[], mapping: RoleMapping): GroupAccess | null {
  const held = new Set(groups);
  const matches = mapping.filter((m) => held.has(m.group));
  if (matches.length === 0) return null;
  const matched = [...new Set(matches.map((m) => m.group))];
  const admin = matches.find((m) => m.role === "admin");
  if (admin) return { role: "admin", grants: [], group: admin.group, groups: matched };
  const unique = new Map(matches.map((m) => [`${m.role}@${m.scope}`, { role: m.role, scope: m.scope }]));
  const grants = sortGrants([...unique.values()]);
  const role = roleOfGrants(grants);
  return { role, grants, group: matches.find((m) => m.role === role)!.group, groups: matched };
}

/** The groups a claim holds: a list of strings, or one string; anything else is no groups. */
export function groupsOf(claim: unknown): string[] {
  if (typeof claim === "string") return [claim];
  if (Array.isArray(claim)) return claim.filter((g): g is string => typeof g === "string").slice(0, 1000);
  return [];
}

/** What a refused person reads: which groups would have let them in. */
export function noMappedGroupMessage(who: string, groups: readonly string[], mapping: RoleMapping, provider: string): string {
  const mapped = [...new Set(mapping.map((m) => m.group))].join(", ");
  const shown = groups.length ? `your groups: ${groups.slice(0, 10).join(", ")}${groups.length > 10 ? ", …" : ""}` : "you are in no group";
  return `${who} is not in any group that has a Fleetskew role (${shown}; ${provider} groups with a role: ${mapped}). Ask an administrator to add you to one.`;
}
