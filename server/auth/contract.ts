/**
 * What the session, user and sign-in settings endpoints of /api/v1 take and send, defined once:
 * route handlers bind to these endpoints, the browser calls them, the OpenAPI document is made
 * from them. Imports zod and pure modules only, so the browser may import it.
 */
import { z } from "zod";
import { ROLES } from "../domain/accounts";
import { GRANTABLE_ROLES, MAX_GRANTS } from "../domain/grantChanges";
import { parseScope, SCOPE_MAX_LENGTH } from "../domain/scope";
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

/** A role over a scope, as stored and shown: the scope in the fleet view's query language, "" for the whole fleet. */
export const GrantAnswer = z
  .strictObject({
    role: z.enum(ROLES),
    scope: z
      .string()
      .meta({ description: "A fleet filter (clusterSet=…, label=…, hub=…, platform=…, name=…, joined by &); empty for the whole fleet" }),
  })
  .meta({ id: "Grant" });

const RoleSchema = z.enum(ROLES, { error: `Role must be one of ${ROLES.join(", ")}` });

/** A grant as an admin gives it: the scope is checked here and stored as formatScope writes it. */
export const GrantInput = z.object({
  role: z.enum(GRANTABLE_ROLES, {
    error: `role must be one of ${GRANTABLE_ROLES.join(", ")}; admin is set as the account's role and covers the whole fleet`,
  }),
  scope: z
    .string({ error: "scope must be a text: a fleet filter such as clusterSet=edge-emea, or empty for the whole fleet" })
    .max(SCOPE_MAX_LENGTH)
    .superRefine((text, ctx) => {
      const read = parseScope(text);
      if (!read.ok) ctx.addIssue({ code: "custom", message: `The scope is not one Fleetskew reads: ${read.error}` });
    })
    .meta({ description: "A fleet filter (clusterSet=…, label=…, hub=…, platform=…, name=…, joined by &); empty for the whole fleet" }),
});

const GrantList = z
  .array(GrantInput)
  .max(MAX_GRANTS, `A person holds at most ${MAX_GRANTS} grants; group clusters into a cluster set instead`);

export const NewUserSchema = z.object({
  username: UsernameSchema,
  displayName: z.string().trim().max(120).optional(),
  role: RoleSchema,
  password: PasswordSchema,
  grants: GrantList.optional().meta({
    description:
      "What the account holds instead of its role over the whole fleet; the account's role is then the highest of them (approver > technician > viewer). Not with role admin.",
  }),
});

/** PUT /api/v1/users/{id}/grants: the whole list, replacing what the person held. */
export const GrantsChangeSchema = z.strictObject({
  grants: GrantList.meta({
    description: "Every grant the person is to hold; an empty list leaves them able to sign in but see no cluster",
  }),
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
    authSource: z.enum(["password", "oidc", "openshift", "service"]).meta({
      description:
        "password: a local account; oidc, openshift: single sign-on, whose grants follow the person's groups; service: a service account, which acts through its tokens only",
    }),
    grants: z.array(GrantAnswer).meta({ description: "Each a role over a scope; an admin holds the whole fleet" }),
  })
  .meta({ id: "User" });
export type UserAnswer = z.output<typeof UserAnswer>;

/** A token in force, as the Users page lists it beside its owner: never its secret. */
const UserToken = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    expiresAt: isoDate(),
    lastUsedAt: isoDate().nullable(),
    lastUsedIp: z.string().nullable(),
  })
  .meta({ id: "UserToken" });

/** An account as the Users page lists it: with its API tokens in force. */
export const UserListEntry = UserAnswer.extend({
  tokens: z.array(UserToken).meta({ description: "The account's API tokens in force (neither expired nor revoked), newest first" }),
}).meta({ id: "UserListEntry" });
export type UserListEntry = z.output<typeof UserListEntry>;

const UserIdParams = z.object({ id: z.uuid("No such user") });

export const userEndpoints = {
  list: endpoint({
    method: "GET",
    path: "/api/v1/users",
    summary: "Every account, local, single sign-on and service, each with its API tokens in force",
    access: ["admin"],
    personOnly: "manage users or their grants",
    answer: z.strictObject({ users: z.array(UserListEntry) }),
  }),
  create: endpoint({
    method: "POST",
    path: "/api/v1/users",
    summary: "Create a local account",
    access: ["admin"],
    personOnly: "manage users or their grants",
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
    personOnly: "manage users or their grants",
    params: UserIdParams,
    body: UserChangeSchema,
    errors: [409],
    answer: z.strictObject({ user: UserAnswer }),
  }),
  setGrants: endpoint({
    method: "PUT",
    path: "/api/v1/users/{id}/grants",
    summary: "Replace what a local account holds: each grant a role over a scope of the fleet",
    description:
      "The list replaces every grant the person held, the whole-fleet one an account was created with included. Roles are viewer, technician and approver; scopes are fleet filters, stored in one canonical form, duplicates collapsed; at most 50. The account's role becomes the highest of them (approver > technician > viewer; viewer with none). An empty list is allowed: the person can still sign in but sees no cluster. Admins hold the whole fleet and no grants (409: change their role first). Accounts that sign in with single sign-on take their grants from their groups at each sign-in (409).",
    access: ["admin"],
    personOnly: "manage users or grants",
    params: UserIdParams,
    body: GrantsChangeSchema,
    errors: [409],
    answer: z.strictObject({ user: UserAnswer }),
  }),
};

// ---- Session ----

export const SignInSchema = z.object({
  username: z.string({ error: "username is required" }).min(1, "username is required").max(200),
  password: z.string({ error: "password is required" }).min(1, "password is required").max(1024),
});

export const OidcStartQuery = z.object({
  next: z.string().max(2048).optional().meta({ description: "The console's page to show after signing in" }),
});

const callbackParam = z.string().max(4096).optional();
/** What the OpenID provider sends back (RFC 6749 §4.1.2, RFC 9207). */
export const OidcCallbackQuery = z.object({
  code: callbackParam,
  state: callbackParam,
  iss: callbackParam,
  error: callbackParam,
  error_description: callbackParam,
});

/** DELETE /api/v1/session after single sign-on: where to end the provider's session too. */
const SignOutAnswer = z
  .strictObject({
    providerSignOut: z.string().meta({
      description: "The OpenID provider's end-session URL, or oauth-proxy's sign-out path (/oauth/sign_out) on this origin",
    }),
  })
  .optional();
export type SignOutResponse = z.output<typeof SignOutAnswer>;

const SIGN_IN_REDIRECT =
  "On success to the page asked for; when refused, to /login?refused=1, with the reason in a short-lived cookie the sign-in page shows.";

export const sessionEndpoints = {
  signIn: endpoint({
    method: "POST",
    path: "/api/v1/session",
    summary: "Sign in with a local username and password; sets the session cookie",
    description:
      "401 for a wrong username or password (unknown users, wrong passwords and disabled accounts alike); 403 while password sign-in is turned off for this account; 429 with Retry-After after several failures from one address (slowed down, then locked for the rest of a 15-minute window).",
    access: "public",
    body: SignInSchema,
    maxBodyBytes: 4096,
    errors: [401, 429],
    answer: z.strictObject({ user: UserAnswer, expiresAt: isoDate() }),
  }),
  current: endpoint({
    method: "GET",
    path: "/api/v1/session",
    summary: "The signed-in person",
    access: "any",
    answer: z.strictObject({ user: UserAnswer }),
  }),
  signOut: endpoint({
    method: "DELETE",
    path: "/api/v1/session",
    summary: "Sign out: end the session and clear its cookie",
    description:
      "After single sign-on the answer names where to end the provider's session too (200 with `providerSignOut`); after a password sign-in there is nothing more to end (204).",
    access: "any",
    personOnly: "sign out of a console session",
    noContentWhen: "the session was a password sign-in",
    answer: SignOutAnswer,
  }),
  startOidc: endpoint({
    method: "GET",
    path: "/api/v1/session/oidc",
    summary: "Start single sign-on: send the browser to the OpenID provider",
    description:
      "303 to the provider's authorization endpoint, with the sealed sign-in flow in a short-lived cookie; 303 to /login?refused=1 when the provider cannot be reached. 404 when no OpenID provider is configured.",
    access: "public",
    query: OidcStartQuery,
    status: 303,
    produces: "redirect",
    errors: [404],
    answer: z.void(),
  }),
  oidcCallback: endpoint({
    method: "GET",
    path: "/api/v1/session/oidc/callback",
    summary: "Where the OpenID provider sends the browser back",
    description: `303 with the session cookie set when signed in. ${SIGN_IN_REDIRECT} 404 when no OpenID provider is configured.`,
    access: "public",
    query: OidcCallbackQuery,
    status: 303,
    produces: "redirect",
    errors: [404],
    answer: z.void(),
  }),
};

// ---- Sign-in settings ----

export const SignInSettingsSchema = z
  .object({
    localSignIn: z.boolean({ error: "localSignIn must be true or false" }),
    // Explicit on purpose: turning local sign-in off names the break-glass account, or says null for none.
    breakGlassAccount: z.string().trim().min(1).max(200).nullable().optional(),
  })
  .refine((s) => s.localSignIn || s.breakGlassAccount !== undefined, {
    message:
      "Turning local sign-in off needs breakGlassAccount: the local admin account that still may sign in with a password, or null for none",
  });

const text = (max: number) => z.string().trim().max(max);

/** PUT /api/v1/settings/oidc: the OpenID provider set on the admin page. */
export const OidcSettingsSchema = z.object({
  issuer: text(500).min(1, "issuer is required"),
  clientId: text(200).min(1, "clientId is required"),
  /** Write-only: absent keeps the stored secret, null removes it (a public client). */
  clientSecret: z.string().min(1).max(1000).nullable().optional(),
  scopes: text(500).optional(),
  groupsClaim: text(200).optional(),
  /** `group=role,group=role@scope,…`, as FLEETSKEW_OIDC_ROLES. */
  roles: text(4000).min(1, "roles must map at least one group to a role, e.g. fleet-admins=admin"),
  name: text(60).optional(),
});
export type OidcSettingsRequest = z.input<typeof OidcSettingsSchema>;

const RoleEntryAnswer = z.strictObject({
  group: z.string(),
  role: z.enum(ROLES),
  scope: z.string().meta({ description: "The part of the fleet the role is given over (a fleet filter); empty for the whole fleet" }),
});
export type RoleEntry = z.output<typeof RoleEntryAnswer>;

const SignInSettingsAnswer = z.strictObject({
  localSignIn: z.boolean().meta({ description: "Whether people may sign in with a local password" }),
  breakGlassAccount: z
    .string()
    .nullable()
    .meta({ description: "With local sign-in off: the one local account that still may (break-glass), or null for none" }),
});
/** The sign-in settings as they are stored and the admin page edits them. */
export type SignInSettings = z.output<typeof SignInSettingsAnswer>;

export const SignInSettingsViewAnswer = SignInSettingsAnswer.extend({
  oidc: z
    .strictObject({
      source: z.enum(["environment", "admin"]).meta({ description: "The environment's provider wins over one set on the admin page" }),
      clientSecretSet: z.boolean().meta({ description: "Whether a client secret is set; the secret itself is never sent" }),
      name: z.string(),
      issuer: z.string(),
      clientId: z.string(),
      scopes: z.string(),
      groupsClaim: z.string(),
      redirectUri: z.string(),
      roles: z.array(RoleEntryAnswer),
    })
    .nullable()
    .meta({ description: "The OpenID provider in force, or null" }),
  publicUrl: z.string().nullable().meta({ description: "FLEETSKEW_PUBLIC_URL, which an OpenID provider needs for its redirect URI" }),
  authProxy: z
    .strictObject({
      kind: z.literal("openshift"),
      peers: z.array(z.string()),
      apiUrl: z.string().nullable(),
      roles: z.array(RoleEntryAnswer),
    })
    .nullable()
    .meta({ description: "oauth-proxy in front, from the environment, or null" }),
}).meta({ id: "SignInSettings" });
export type SignInSettingsView = z.output<typeof SignInSettingsViewAnswer>;

export const ClearThrottleQuery = z.object({
  username: z.string({ error: "name the username: ?username=NAME" }).trim().min(1).max(200),
  address: z.string().trim().min(1).max(100).optional(),
});

const SignInLockAnswer = z.strictObject({
  username: z.string(),
  ip: z.string().meta({ description: "The address the attempts came from" }),
  attempts: z.number().int(),
  windowStartedAt: isoDate(),
  lastAttemptAt: isoDate(),
  state: z.enum(["slowed", "locked"]),
  until: isoDate(),
});
export type SignInLock = z.output<typeof SignInLockAnswer>;

export const signInSettingsEndpoints = {
  read: endpoint({
    method: "GET",
    path: "/api/v1/settings/sign-in",
    summary: "How people sign in: local passwords, the break-glass account and the single sign-on configured",
    description: "The OpenID provider's client secret is never sent, only whether one is set.",
    access: ["admin"],
    personOnly: "read or change how people sign in",
    answer: SignInSettingsViewAnswer,
  }),
  change: endpoint({
    method: "PUT",
    path: "/api/v1/settings/sign-in",
    summary: "Turn local sign-in on or off",
    description:
      "Off only while single sign-on is configured, and the break-glass account, when named, must be an active local admin (409 otherwise).",
    access: ["admin"],
    personOnly: "read or change how people sign in",
    body: SignInSettingsSchema,
    errors: [409],
    answer: SignInSettingsViewAnswer,
  }),
  setOidc: endpoint({
    method: "PUT",
    path: "/api/v1/settings/oidc",
    summary: "Set the OpenID provider",
    description:
      "The client secret is sealed and never sent back; absent keeps the stored one, null removes it. Refused (409) while the environment sets a provider (FLEETSKEW_OIDC_ISSUER), which wins.",
    access: ["admin"],
    personOnly: "read or change how people sign in",
    body: OidcSettingsSchema,
    errors: [409],
    answer: SignInSettingsViewAnswer,
  }),
  removeOidc: endpoint({
    method: "DELETE",
    path: "/api/v1/settings/oidc",
    summary: "Remove the OpenID provider set on the admin page",
    description: "Refused (409) while the environment sets a provider.",
    access: ["admin"],
    personOnly: "read or change how people sign in",
    errors: [409],
    answer: SignInSettingsViewAnswer,
  }),
  locks: endpoint({
    method: "GET",
    path: "/api/v1/sign-in-locks",
    summary: "Usernames whose sign-in is slowed down or locked, from which address, until when",
    description: "At most 500, the most recent first.",
    access: ["admin"],
    personOnly: "read or clear sign-in locks",
    answer: z.strictObject({ locks: z.array(SignInLockAnswer) }),
  }),
  clearLock: endpoint({
    method: "DELETE",
    path: "/api/v1/sign-in-locks",
    summary: "Clear a username's sign-in lock, from one address or all of them",
    description: "Audited. `cleared` counts the (username, address) locks lifted.",
    access: ["admin"],
    personOnly: "read or clear sign-in locks",
    query: ClearThrottleQuery,
    answer: z.strictObject({ cleared: z.number().int() }),
  }),
};
