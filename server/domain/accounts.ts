/**
 * What an account is to Fleetskew: the role it holds and how its person signs in. Who may do what
 * with a role is server/auth/roles.ts. Defined here, apart from the store's users and sessions,
 * which both use them, and so that the configuration (group → role mappings) can name roles
 * without reaching into the database layer.
 */
export const ROLES = ["viewer", "technician", "approver", "admin"] as const;
export type Role = (typeof ROLES)[number];

/**
 * How an account signs in: a local password, an OpenID Connect provider, or OpenShift's
 * oauth-proxy; a service account never signs in and acts through its API tokens only.
 */
export type SignInMethod = "password" | "oidc" | "openshift" | "service";
