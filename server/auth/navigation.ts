import { hasRole, type Role } from "./roles";

/** The console's sections and who may open them; pages check the same lists. */
export const SECTIONS = {
  fleet: { href: "/fleet", label: "Fleet", access: "any" },
  alerts: { href: "/alerts", label: "Alerts", access: "any" },
  preview: { href: "/preview", label: "Preview", access: "any" },
  rollouts: { href: "/rollouts", label: "Rollouts", access: "any" },
  bundles: { href: "/bundles", label: "Bundles", access: "any" },
  acknowledgements: { href: "/acknowledgements", label: "Acknowledgements", access: "any" },
  audit: { href: "/audit", label: "Audit", access: ["admin", "approver"] },
  admin: { href: "/admin", label: "Admin", access: ["admin"] },
} as const satisfies Record<string, { href: string; label: string; access: readonly Role[] | "any" }>;

/**
 * The sections a person may open: those any of their roles opens, a role held over any scope
 * counting (a technician of one cluster set sees the technician's sections, limited to that set
 * inside). Given one role, that role alone.
 */
export function navigationFor(roles: Role | readonly Role[]) {
  const held: readonly Role[] = typeof roles === "string" ? [roles] : roles;
  return Object.values(SECTIONS)
    .filter((s) => s.access === "any" || held.some((role) => hasRole(role, s.access)))
    .map(({ href, label }) => ({ href, label }));
}
