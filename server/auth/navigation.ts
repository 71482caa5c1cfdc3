import { hasRole, type Role } from "./roles";

/** The console's sections and who may open them; pages check the same lists. */
export const SECTIONS = {
  fleet: { href: "/fleet", label: "Fleet", access: "any" },
  preview: { href: "/preview", label: "Preview", access: "any" },
  rollouts: { href: "/rollouts", label: "Rollouts", access: "any" },
  bundles: { href: "/bundles", label: "Bundles", access: "any" },
  acknowledgements: { href: "/acknowledgements", label: "Acknowledgements", access: "any" },
  audit: { href: "/audit", label: "Audit", access: ["admin", "approver"] },
  admin: { href: "/admin", label: "Admin", access: ["admin"] },
} as const satisfies Record<string, { href: string; label: string; access: readonly Role[] | "any" }>;

export function navigationFor(role: Role) {
  return Object.values(SECTIONS)
    .filter((s) => hasRole(role, s.access))
    .map(({ href, label }) => ({ href, label }));
}
