import { spawn } from "node:child_process";
import { createCipheriv, randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../config/env";
import { credentialsContext, credentialsOf, sealCredentials } from "../clusters/registration";
import { keepPreviewInputs, openPreviewObjects } from "../preview/storedInputs";
import { insertCluster } from "../store/clusters";
import { findPreviewInputs } from "../store/previewInputs";
import { listSealedCredentials, sealedSummary } from "../store/sealed";
import { useMigratedDatabase } from "../testing/database";
import { keyFileOf } from "../secrets/keyring";
import { envelopeInfo, open, parseSecretKey } from "../secrets/secretBox";
import { prepareSecretKeys } from "./secretKeys";

/**
 * Keys against what the database holds sealed: the start's checks, and `npm run keys:reseal`
 * run for real, as a separate process, after a key change.
 */
const oldKey = randomBytes(32).toString("base64");
const newKey = randomBytes(32).toString("base64");
process.env.FLEETSKEW_SECRET_KEY = oldKey;
const db = useMigratedDatabase();
const root = path.resolve(__dirname, "../..");
let dataDir: string;

const credentials = { server: "https://api.example:6443", token: "sha256~secret-token", insecureSkipTlsVerify: false };

/** Credentials as Fleetskew sealed them before key ids. */
function sealV1(key: string, plaintext: string, context: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", Buffer.from(key, "base64"), iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return Buffer.concat([Buffer.from([1]), iv, cipher.getAuthTag(), body]);
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "fleetskew-keys-"));
  const current = await insertCluster(
    {
      name: "current",
      displayName: "current",
      labels: {},
      platform: null,
      apiUrl: credentials.server,
      encryptedCredentials: await sealCredentials("current", credentials),
    },
    { actor: "test" },
  );
  await insertCluster(
    {
      name: "legacy",
      displayName: "legacy",
      labels: {},
      platform: null,
      apiUrl: credentials.server,
      encryptedCredentials: sealV1(oldKey, JSON.stringify(credentials), credentialsContext("legacy")),
    },
    { actor: "test" },
  );
  await keepPreviewInputs(current.id, {
    key: "k1",
    objects: [{ kind: "MachineConfig", metadata: { name: "00-worker" } }],
    observedAt: new Date(),
  });
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

const config = (over: { secretKey?: string; oldSecretKeys?: string[] } = {}) => ({
  secretKey: undefined,
  oldSecretKeys: [],
  dataDir,
  ...over,
});

describe("the start's key check", () => {
  it("stops, instead of making a new key, when sealed credentials exist and there is no key", async () => {
    await expect(prepareSecretKeys(config())).rejects.toThrow(ConfigError);
    await expect(prepareSecretKeys(config())).rejects.toThrow(
      `the database holds 2 sealed cluster credential(s), but there is no secret key: ${keyFileOf(dataDir)} is missing and FLEETSKEW_SECRET_KEY is not set`,
    );
  });

  it("stops on data sealed under a key nobody listed, and accepts it once the key is listed as old", async () => {
    await expect(prepareSecretKeys(config({ secretKey: newKey }))).rejects.toThrow(/sealed with key [0-9a-f]{8}, which is not configured/);
    await writeFile(keyFileOf(dataDir), `${newKey}\n`);
    await expect(prepareSecretKeys(config())).rejects.toThrow(/which is not configured/);
    await rm(keyFileOf(dataDir));
    const ready = await prepareSecretKeys(config({ secretKey: newKey, oldSecretKeys: [oldKey] }));
    // The two keyed envelopes under the old key, and the legacy one.
    expect(ready.underOldKeys).toBe(3);
  });
});

describe("npm run keys:reseal", () => {
  it("re-seals every secret under the new key, after which the old key is not needed", async () => {
    const run = spawn(process.execPath, ["--import", "tsx", path.join(root, "scripts/keys.ts"), "reseal"], {
      cwd: root,
      env: {
        NODE_ENV: "test",
        PATH: process.env.PATH ?? "",
        DATABASE_URL: db().url,
        FLEETSKEW_DATA_DIR: dataDir,
        FLEETSKEW_SECRET_KEY: newKey,
        FLEETSKEW_SECRET_KEYS_OLD: oldKey,
      },
    });
    let output = "";
    run.stdout.on("data", (d) => (output += d));
    run.stderr.on("data", (d) => (output += d));
    expect(await new Promise((resolve) => run.on("exit", resolve)), output).toBe(0);
    expect(output).toMatch(
      /^fleetskew: re-sealed 2 cluster credential\(s\), 1 kept configuration\(s\), 0 setting secret\(s\) \(the OpenID client secret\) and 0 ACM hub credential\(s\) under key [0-9a-f]{8}/,
    );

    const only = parseSecretKey(newKey);
    expect((await sealedSummary()).headers.map((h) => envelopeInfo(Buffer.concat([h.header, Buffer.alloc(64)]))?.keyId)).toEqual([only.id]);
    for (const row of await listSealedCredentials(null))
      expect(JSON.parse(open([only], row.sealed, credentialsContext(row.name)))).toEqual(credentials);
    const kept = (await findPreviewInputs("current"))!;
    expect(envelopeInfo(kept.sealed!)?.keyId).toBe(only.id);
    // The process under test still has the old key only: it can no longer open them.
    await expect(credentialsOf("current")).rejects.toThrow(/sealed with key/);
    await expect(openPreviewObjects(kept.clusterId, kept.sealed!)).rejects.toThrow(/sealed with key/);
    await expect(prepareSecretKeys(config({ secretKey: newKey }))).resolves.toMatchObject({ underOldKeys: 0 });
  });
});
