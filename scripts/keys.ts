/**
 * `npm run keys:reseal`: re-seals every secret at rest (cluster credentials, the configuration kept
 * for offline previews) under the current key, FLEETSKEW_SECRET_KEY or the key file's first line,
 * opening them with any listed key (FLEETSKEW_SECRET_KEYS_OLD, the key file's other lines).
 * Afterwards the old keys may be removed. With the embedded database, stop the console first.
 */
import { ConfigError, readConfig } from "../server/config/env";
import { openDatabase } from "../server/runtime/database";
import { prepareSecretKeys, resealAll } from "../server/runtime/secretKeys";
import { agreeOnSecretKey } from "../server/secrets/sharedKey";
import { SecretKeyError } from "../server/secrets/secretBox";
import { recordAudit } from "../server/store/audit";
import { closeDb } from "../server/store/db";

async function main() {
  if (process.argv[2] !== "reseal") throw new ConfigError("usage: npm run keys:reseal");
  const config = readConfig();
  const database = await openDatabase(config);
  process.env.DATABASE_URL = database.url;
  process.env.FLEETSKEW_DATABASE_MODE = database.mode;
  try {
    const { ring } = await prepareSecretKeys(config);
    // Re-sealing under a key is adopting it: the deployment's recorded key becomes this one.
    await agreeOnSecretKey(ring, "keys:reseal");
    const done = await resealAll();
    await recordAudit({
      actor: null,
      action: "secrets.reseal",
      summary: `re-sealed ${done.credentials} cluster credential(s), ${done.previewInputs} kept configuration(s), ${done.settings} setting secret(s) and ${done.hubs} hub credential(s) under key ${ring.current.id}`,
      details: { key: ring.current.id, ...done },
    });
    console.log(
      `fleetskew: re-sealed ${done.credentials} cluster credential(s), ${done.previewInputs} kept configuration(s), ${done.settings} setting secret(s) (the OpenID client secret) and ${done.hubs} ACM hub credential(s) under key ${ring.current.id}; the old keys are no longer needed`,
    );
  } finally {
    await closeDb();
    await database.embedded?.stop();
  }
}

main().catch((error) => {
  console.error(error instanceof ConfigError || error instanceof SecretKeyError ? `fleetskew: ${error.message}` : error);
  process.exit(1);
});
