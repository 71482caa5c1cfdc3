import type { RoleMapping } from "../config/sso";
import type { Role } from "../store/users";

/** When a person's groups give several roles, the one with the most rights wins. */
const PRECEDENCE: readonly Role[] = ["admin", "approver", "technician", "viewer"];

/**
 * The role a person's groups give under the mapping, and which group gave it; null when none of
 * their groups is mapped (the sign-in is then refused).
 */
export function roleForGroups(groups: readonly string[], mapping: RoleMapping): { role: Role; group: string } | null {
  const held = new Set(groups);
  const matches = mapping.filter((m) => held.has(m.group));
  if (matches.length === 0) return null;
  const best = [...matches].sort((a, b) => PRECEDENCE.indexOf(a.role) - PRECEDENCE.indexOf(b.role))[0]!;
  return { role: best.role, group: best.group };
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
