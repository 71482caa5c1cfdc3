import type { Role } from "@/server/domain/accounts";

/** A grant as the console shows it. */
export type ShownGrant = { role: Role; scope: string };

/** "technician · clusterSet=edge-emea", or "viewer · whole fleet". */
export const grantText = (g: ShownGrant) => `${g.role} · ${g.scope || "whole fleet"}`;

/** The fleet view filtered by a scope: a scope is written in the fleet view's own query language. */
export function fleetHrefFor(scope: string): string {
  const terms = scope
    .split("&")
    .map((t) => t.trim())
    .filter(Boolean)
    .map((t) => {
      const eq = t.indexOf("=");
      return eq < 0 ? encodeURIComponent(t) : `${encodeURIComponent(t.slice(0, eq).trim())}=${encodeURIComponent(t.slice(eq + 1).trim())}`;
    });
  return terms.length ? `/fleet?${terms.join("&")}` : "/fleet";
}

/** The roles a person holds somewhere in the fleet, the most rights first. */
export function rolesOf(grants: readonly ShownGrant[]): Role[] {
  return (["admin", "approver", "technician", "viewer"] as const).filter((r) => grants.some((g) => g.role === r));
}

export const SCOPE_HELP =
  "Written as in the fleet view: clusterSet=…, hub=…, label=key or label=key=value, platform=…, name=a,b, joined by &. Empty: the whole fleet.";
