import { z } from "zod";
import { appConfig } from "../config/current";
import type { AppConfig } from "../config/env";
import { readSsoConfig, SsoConfigError, type OidcConfig } from "../config/sso";
import { UserFacingError } from "../errors";
import { openSecret, sealSecret } from "../secrets/keyring";
import { readSetting, writeSetting } from "../store/settings";
import { auditActor, type Actor } from "./actor";
import { OidcSettingsSchema } from "./contract";

/**
 * The OpenID provider as an admin sets it on the admin page, kept in the settings table with the
 * client secret sealed under the console's secret key (like cluster credentials). The environment
 * wins: with FLEETSKEW_OIDC_ISSUER set, the stored provider is ignored and cannot be changed here.
 */
export const OIDC_SETTING_KEY = "oidc";
export const OIDC_SECRET_CONTEXT = "fleetskew oidc client secret";

const Stored = z.object({
  issuer: z.string(),
  clientId: z.string(),
  /** The sealed client secret, base64; null for a public client. */
  clientSecret: z.string().nullable(),
  scopes: z.string(),
  groupsClaim: z.string(),
  roles: z.string(),
  name: z.string().nullable(),
});
type Stored = z.infer<typeof Stored>;

export { OidcSettingsSchema };

/** What the environment variables' messages call a field, in the admin page's words. */
const FIELD_NAMES: Record<string, string> = {
  FLEETSKEW_OIDC_ISSUER: "issuer",
  FLEETSKEW_OIDC_CLIENT_ID: "clientId",
  FLEETSKEW_OIDC_SCOPES: "scopes",
  FLEETSKEW_OIDC_ROLES: "roles",
};

function configOf(stored: Stored, secret: string | undefined, publicUrl: string | undefined): OidcConfig {
  const { oidc } = readSsoConfig(
    {
      FLEETSKEW_OIDC_ISSUER: stored.issuer,
      FLEETSKEW_OIDC_CLIENT_ID: stored.clientId,
      FLEETSKEW_OIDC_CLIENT_SECRET: secret,
      FLEETSKEW_OIDC_SCOPES: stored.scopes || undefined,
      FLEETSKEW_OIDC_GROUPS_CLAIM: stored.groupsClaim || undefined,
      FLEETSKEW_OIDC_ROLES: stored.roles,
      FLEETSKEW_OIDC_NAME: stored.name ?? undefined,
    },
    publicUrl,
  );
  return oidc!;
}

async function readStored(): Promise<Stored | null> {
  const parsed = Stored.safeParse(await readSetting(OIDC_SETTING_KEY));
  return parsed.success ? parsed.data : null;
}

export type EffectiveOidc = { oidc: OidcConfig; source: "environment" | "admin" } | null;

/** The OpenID provider in force: the environment's, else the one an admin stored, else none. */
export async function effectiveOidc(config: Pick<AppConfig, "oidc" | "publicUrl"> = appConfig()): Promise<EffectiveOidc> {
  if (config.oidc) return { oidc: config.oidc, source: "environment" };
  const stored = await readStored();
  if (!stored) return null;
  try {
    const secret = stored.clientSecret
      ? (await openSecret(Buffer.from(stored.clientSecret, "base64"), OIDC_SECRET_CONTEXT)).toString("utf8")
      : undefined;
    return { oidc: configOf(stored, secret, config.publicUrl), source: "admin" };
  } catch (error) {
    // A stored provider that no longer fits (FLEETSKEW_PUBLIC_URL removed, a key gone) offers no sign-in; the admin page says why.
    console.error("fleetskew: the OpenID provider set on the admin page is not usable:", (error as Error).message);
    return null;
  }
}

/** Sets (or, with null, removes) the OpenID provider kept in the database; refused while the environment sets one. */
export async function saveOidcSettings(input: z.infer<typeof OidcSettingsSchema> | null, actor: Actor): Promise<void> {
  const config = appConfig();
  if (config.oidc)
    throw new UserFacingError(409, "The OpenID provider is set by the environment (FLEETSKEW_OIDC_ISSUER), which wins; change it there");
  if (input === null) {
    await writeSetting(OIDC_SETTING_KEY, {}, auditActor(actor), { oidc: "removed" });
    return;
  }
  const previous = await readStored();
  const sealed =
    input.clientSecret === undefined
      ? (previous?.clientSecret ?? null)
      : input.clientSecret === null
        ? null
        : (await sealSecret(input.clientSecret, OIDC_SECRET_CONTEXT)).toString("base64");
  const stored: Stored = {
    issuer: input.issuer,
    clientId: input.clientId,
    clientSecret: sealed,
    scopes: input.scopes ?? "",
    groupsClaim: input.groupsClaim ?? "",
    roles: input.roles,
    name: input.name || null,
  };
  try {
    configOf(stored, undefined, config.publicUrl);
  } catch (error) {
    if (!(error instanceof SsoConfigError)) throw error;
    const message = error.message.replace(/^(FLEETSKEW_[A-Z_]+)/, (v) => FIELD_NAMES[v] ?? v);
    throw new UserFacingError(400, message);
  }
  // The audit log shows what changed, never the secret (nor its sealed form).
  const { clientSecret: _, ...shown } = stored;
  await writeSetting(OIDC_SETTING_KEY, stored, auditActor(actor), {
    oidc: { ...shown, clientSecret: input.clientSecret === undefined ? "unchanged" : sealed ? "set" : "none" },
  });
}
