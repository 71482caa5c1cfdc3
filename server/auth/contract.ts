/**
 * What the session, user and sign-in settings endpoints of /api/v1 take and send, defined once:
 * route handlers bind to these endpoints, the browser calls them, the OpenAPI document is made
 * from them. Imports zod and pure modules only, so the browser may import it.
 */
import { z } from "zod";
import { ROLES } from "../domain/roles";
import { endpoint, isoDate } from "../http/endpoint";

export const UsernameSchema = z
  .string()
  .trim()
  .min(2, "Username must be at least 2 characters")
  .max(64, "Username must be at most 64 characters")
  .regex(
    /^[a-z0-9][a-z0-9._-]*$/,
    "Username may use lower-case letters, digits, dots, dashes and underscores, and must start with a letter or digit",
  );

export const PasswordSchema = z
  .string()
  .min(12, "Password must be at least 12 characters")
  .max(256, "Password must be at most 256 characters");

const RoleSchema = z.enum(ROLES, { error: `Role must be one of ${ROLES.join(", ")}` });

export const NewUserSchema = z.object({
  username: UsernameSchema,
  displayName: z.string().trim().max(120).optional(),
  role: RoleSchema,
  password: PasswordSchema,
});

export const UserChangeSchema = z
  .object({
    role: RoleSchema.optional(),
    disabled: z.boolean().optional(),
    password: PasswordSchema.optional(),
    displayName: z.string().trim().max(120).nullable().optional(),
  })
  .refine((c) => Object.values(c).some((v) => v !== undefined), "Nothing to change");

/** A person's account as admins see it: never a password hash. */
export const UserAnswer = z
  .strictObject({
    id: z.string(),
    username: z.string(),
    displayName: z.string().nullable(),
    role: z.enum(ROLES),
    disabled: z.boolean(),
    createdAt: isoDate(),
    authSource: z.enum(["password", "oidc", "openshift"]).meta({
      description: "password: a local account; oidc, openshift: single sign-on, whose role follows the person's groups",
    }),
  })
  .meta({ id: "User" });
export type UserAnswer = z.output<typeof UserAnswer>;

const UserIdParams = z.object({ id: z.uuid("No such user") });

export const userEndpoints = {
  list: endpoint({
    method: "GET",
    path: "/api/v1/users",
    summary: "Every account, local and single sign-on",
    access: ["admin"],
    answer: z.strictObject({ users: z.array(UserAnswer) }),
  }),
  create: endpoint({
    method: "POST",
    path: "/api/v1/users",
    summary: "Create a local account",
    access: ["admin"],
    body: NewUserSchema,
    status: 201,
    errors: [409],
    answer: z.strictObject({ user: UserAnswer }),
  }),
  change: endpoint({
    method: "PATCH",
    path: "/api/v1/users/{id}",
    summary: "Change an account's role, name or password, or disable it",
    description: "Nobody may disable their own account or remove their own admin role (409).",
    access: ["admin"],
    params: UserIdParams,
    body: UserChangeSchema,
    errors: [409],
    answer: z.strictObject({ user: UserAnswer }),
  }),
};

/** The sign-in settings as the API gives them and the admin page edits them. */
export type SignInSettings = {
  /** Whether people may sign in with a local password. */
  localSignIn: boolean;
  /** With local sign-in off: the one local account that still may (break-glass), or null for none. */
  breakGlassAccount: string | null;
};

export type SignInSettingsView = SignInSettings & {
  /** The OpenID provider in force (never its secret), from the environment (which wins) or set on the admin page; or null. */
  oidc: {
    source: "environment" | "admin";
    clientSecretSet: boolean;
    name: string;
    issuer: string;
    clientId: string;
    scopes: string;
    groupsClaim: string;
    redirectUri: string;
    roles: RoleEntry[];
  } | null;
  /** FLEETSKEW_PUBLIC_URL, which an OpenID provider needs for its redirect URI. */
  publicUrl: string | null;
  /** oauth-proxy in front, from the environment, or null. */
  authProxy: { kind: "openshift"; peers: string[]; apiUrl: string | null; roles: RoleEntry[] } | null;
};

export type RoleEntry = { group: string; role: string };

/** DELETE /api/v1/session after single sign-on: where to end the provider's session too. */
export type SignOutResponse = { providerSignOut: string };

/** PUT /api/v1/settings/oidc: the OpenID provider set on the admin page. */
export type OidcSettingsRequest = {
  issuer: string;
  clientId: string;
  /** Absent: keep the stored one; null: none (a public client). Never returned. */
  clientSecret?: string | null;
  scopes?: string;
  groupsClaim?: string;
  /** `group=role,…` */
  roles: string;
  name?: string;
};
