import { ConfigError, type AppConfig } from "../config/env";
import { credentialsContext } from "../clusters/registration";
import { hubSecretsContext } from "../hubs/sync";
import { listSealedHubSecrets, replaceSealedHubSecrets } from "../store/hubs";
import {
  listSealedCredentials,
  replaceSealedCredentials,
  replaceSealedSettingSecret,
  sampleCredentials,
  sealedSettingSecrets,
  sealedSummary,
} from "../store/sealed";
import { resealPreviewInputs } from "../preview/storedInputs";
import { OIDC_SECRET_CONTEXT } from "../auth/oidcSettings";
import { createKeyFile, keyFileOf, readKeyring, resetKeyring, sealSecret, openSecret, type Keyring } from "../secrets/keyring";
import { envelopeInfo, openBytes, SecretKeyError } from "../secrets/secretBox";

/**
 * The start's check of the keys against what the database holds sealed. A key is generated only
 * while nothing sealed exists: a missing key file with sealed credentials in the database stops the
 * start (a new key could never open them), as does data sealed under a key nobody listed.
 */
export async function prepareSecretKeys(
  config: Pick<AppConfig, "secretKey" | "oldSecretKeys" | "dataDir">,
): Promise<{ ring: Keyring; created: boolean; underOldKeys: number }> {
  const summary = await sealedSummary();
  const sealed = summary.credentials + summary.previewInputs + summary.settings;
  let ring: Keyring | null;
  try {
    ring = await readKeyring(config);
  } catch (error) {
    if (error instanceof SecretKeyError) throw new ConfigError(error.message);
    throw error;
  }
  let created = false;
  if (!ring) {
    if (sealed > 0)
      throw new ConfigError(
        `the database holds ${summary.credentials} sealed cluster credential(s), but there is no secret key: ${keyFileOf(config.dataDir)} is missing and FLEETSKEW_SECRET_KEY is not set; restore the key file or set the variable (a new key could not open them)`,
      );
    await createKeyFile(config.dataDir);
    ring = (await readKeyring(config))!;
    created = true;
  }
  resetKeyring();
  const known = new Set(ring.keys.map((k) => k.id));
  let underOldKeys = 0;
  // Keyed envelopes first: an unknown key id is the clearer message when both problems exist.
  for (const { header, count } of [...summary.headers].sort((a, b) => b.header[0]! - a.header[0]!)) {
    const info = envelopeInfo(Buffer.concat([header, Buffer.alloc(64)]));
    if (!info) throw new ConfigError(`the database holds ${count} sealed secret(s) in a format this version of Fleetskew does not know`);
    if (info.keyId === null) {
      // Sealed before key ids: try one with the configured keys.
      const sample = await sampleCredentials(header.subarray(0, 1));
      if (sample) {
        try {
          openBytes(ring.keys, sample.sealed, credentialsContext(sample.name));
        } catch {
          throw new ConfigError(
            `the credentials of ${sample.name} do not open with the configured secret key; restore the key they were sealed with (FLEETSKEW_SECRET_KEY, or ${keyFileOf(config.dataDir)}), listing others in FLEETSKEW_SECRET_KEYS_OLD`,
          );
        }
      }
      underOldKeys += count;
      continue;
    }
    if (!known.has(info.keyId))
      throw new ConfigError(
        `the database holds ${count} secret(s) sealed with key ${info.keyId}, which is not configured; set it as FLEETSKEW_SECRET_KEY or list it in FLEETSKEW_SECRET_KEYS_OLD (or the key file)`,
      );
    if (info.keyId !== ring.current.id) underOldKeys += count;
  }
  return { ring, created, underOldKeys };
}

const SETTING_SECRET_CONTEXTS: Record<string, string> = { oidc: OIDC_SECRET_CONTEXT };

/** Re-seals every secret at rest under the current key; afterwards the old keys may be removed. */
export async function resealAll(): Promise<{ credentials: number; previewInputs: number; settings: number; hubs: number }> {
  let credentials = 0;
  let after: string | null = null;
  for (let page = await listSealedCredentials(after); page.length; page = await listSealedCredentials(after)) {
    for (const row of page) {
      const context = credentialsContext(row.name);
      const plain = await openSecret(row.sealed, context);
      if (await replaceSealedCredentials(row.name, row.sealed, new Uint8Array(await sealSecret(plain, context)))) credentials++;
    }
    after = page.at(-1)!.name;
  }
  // Secrets inside settings (the OpenID client secret): sealed with a fixed context per setting.
  let settings = 0;
  for (const secret of await sealedSettingSecrets()) {
    const context = SETTING_SECRET_CONTEXTS[secret.key]!;
    const plain = await openSecret(secret.sealed, context);
    if (await replaceSealedSettingSecret(secret.key, secret.field, secret.sealed, await sealSecret(plain, context))) settings++;
  }
  // ACM hubs' reader and proxy credentials.
  let hubs = 0;
  for (const hub of await listSealedHubSecrets()) {
    const context = hubSecretsContext(hub.name);
    const plain = await openSecret(hub.sealed, context);
    if (await replaceSealedHubSecrets(hub.name, hub.sealed, new Uint8Array(await sealSecret(plain, context)))) hubs++;
  }
  return { credentials, previewInputs: await resealPreviewInputs(), settings, hubs };
}
