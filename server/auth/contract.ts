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
