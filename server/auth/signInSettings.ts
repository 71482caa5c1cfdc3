import { z } from "zod";
import { appConfig } from "../config/current";
import type { AppConfig } from "../config/env";
import { UserFacingError } from "../errors";
import { readSetting, writeSetting, writeSettingEndingPasswordSessions } from "../store/settings";
import { listUsers } from "../store/users";
import { auditActor, type Actor } from "./actor";
import { SignInSettingsSchema, type SignInSettings, type SignInSettingsView } from "./contract";
import { effectiveOidc } from "./oidcSettings";

const KEY = "sign-in";
const DEFAULTS: SignInSettings = { localSignIn: true, breakGlassAccount: null };

export { SignInSettingsSchema };

const Stored = z.object({ localSignIn: z.boolean(), breakGlassAccount: z.string().nullable() });

export async function readSignInSettings(): Promise<SignInSettings> {
  const parsed = Stored.safeParse(await readSetting(KEY));
  return parsed.success ? parsed.data : DEFAULTS;
}

/** Whether password sign-in is on for everyone, and else which one account may still use it. */
export async function passwordSignInPolicy(): Promise<{ everyone: boolean; breakGlassAccount: string | null }> {
  const settings = await readSignInSettings();
  return { everyone: settings.localSignIn, breakGlassAccount: settings.localSignIn ? null : settings.breakGlassAccount };
}

const ssoConfigured = async (config: AppConfig) => config.authProxy !== null || (await effectiveOidc(config)) !== null;

export async function signInSettingsView(config: AppConfig = appConfig()): Promise<SignInSettingsView> {
  const effective = await effectiveOidc(config);
  const oidc = effective?.oidc;
  return {
    ...(await readSignInSettings()),
    oidc: oidc
      ? {
          source: effective.source,
          name: oidc.name,
          issuer: oidc.issuer,
          clientId: oidc.clientId,
          clientSecretSet: oidc.clientSecret !== undefined,
          scopes: oidc.scopes,
          groupsClaim: oidc.groupsClaim,
          redirectUri: oidc.redirectUri,
          roles: oidc.roles,
        }
      : null,
    publicUrl: config.publicUrl ?? null,
    authProxy: config.authProxy && {
      kind: config.authProxy.kind,
      peers: config.authProxy.peers,
      apiUrl: config.authProxy.apiUrl ?? null,
      roles: config.authProxy.roles,
    },
  };
}

/**
 * An admin turns local sign-in on or off. Off only with single sign-on configured (else nobody
 * could sign in), and the break-glass account, when named, must be an active local admin. Turning
 * it off ends every session opened with a password but the break-glass account's, in the same
 * transaction: a password that no longer signs in does not keep its sessions either.
 */
export async function saveSignInSettings(input: z.infer<typeof SignInSettingsSchema>, actor: Actor): Promise<SignInSettingsView> {
  const config = appConfig();
  const settings: SignInSettings = { localSignIn: input.localSignIn, breakGlassAccount: input.breakGlassAccount ?? null };
  if (!settings.localSignIn) {
    if (!(await ssoConfigured(config)))
      throw new UserFacingError(
        409,
        "Local sign-in cannot be turned off while no single sign-on is configured (an OpenID provider, or FLEETSKEW_AUTH_PROXY): nobody could sign in",
      );
    if (settings.breakGlassAccount !== null) {
      const account = (await listUsers()).find((u) => u.username === settings.breakGlassAccount);
      if (!account || account.authSource !== "password" || account.disabled || account.role !== "admin")
        throw new UserFacingError(
          409,
          `The break-glass account must be an active local admin account; ${settings.breakGlassAccount} is not`,
        );
    }
  }
  if (settings.localSignIn) await writeSetting(KEY, settings, auditActor(actor));
  else await writeSettingEndingPasswordSessions(KEY, settings, auditActor(actor), settings.breakGlassAccount);
  return signInSettingsView(config);
}
