import { createHmac, hkdfSync, randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { AppConfig } from "../config/env";
import { appConfig } from "../config/current";
import { openBytes, parseSecretKey, seal, SecretKeyError, type SecretKey } from "./secretBox";

/**
 * The keys that seal secrets at rest: the current one seals, every listed one opens. From
 * FLEETSKEW_SECRET_KEY (+ FLEETSKEW_SECRET_KEYS_OLD), else from <data dir>/secret.key, whose first
 * key line is the current key and any further lines old keys. A key file is generated only by the
 * start, and only while nothing sealed exists (ensureSecretKey); request handling never makes one.
 */
export type Keyring = { current: SecretKey; keys: SecretKey[]; source: "environment" | "file" };

type KeyConfig = Pick<AppConfig, "secretKey" | "oldSecretKeys" | "dataDir">;

export const keyFileOf = (dataDir: string) => path.join(dataDir, "secret.key");

const keyLines = (text: string) =>
  text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));

/** The keyring as configured, or null when there is no key at all (no variable, no key file). */
export async function readKeyring(config: KeyConfig): Promise<Keyring | null> {
  if (config.secretKey) {
    const current = parseSecretKey(config.secretKey);
    const old = config.oldSecretKeys.map((k, i) => parseSecretKey(k, `FLEETSKEW_SECRET_KEYS_OLD entry ${i + 1}`));
    return { current, keys: [current, ...old], source: "environment" };
  }
  const file = keyFileOf(config.dataDir);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  const lines = keyLines(text);
  if (lines.length === 0) throw new SecretKeyError(`${file} holds no key`);
  const keys = lines.map((l, i) => parseSecretKey(l, `${file} line ${i + 1}`));
  const old = config.oldSecretKeys.map((k, i) => parseSecretKey(k, `FLEETSKEW_SECRET_KEYS_OLD entry ${i + 1}`));
  return { current: keys[0]!, keys: [...keys, ...old], source: "file" };
}

/** Writes a new key file (mode 0600); another process that made one first wins. */
export async function createKeyFile(dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const file = keyFileOf(dataDir);
  try {
    await writeFile(file, `${randomBytes(32).toString("base64")}\n`, { mode: 0o600, flag: "wx" });
    await chmod(file, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
}

const holder = globalThis as unknown as { __fleetskewKeyring?: { signature: string; ring: Promise<Keyring> } };

/** The process's keyring; a SecretKeyError when no key is configured. */
export function keyring(): Promise<Keyring> {
  const config = appConfig();
  const signature = [config.secretKey ?? "", config.dataDir, ...config.oldSecretKeys].join("\0");
  if (holder.__fleetskewKeyring?.signature !== signature) {
    const ring = readKeyring(config).then((found) => {
      if (!found)
        throw new SecretKeyError(
          `no secret key: set FLEETSKEW_SECRET_KEY or start the console once with npm start, which creates ${keyFileOf(config.dataDir)}`,
        );
      return found;
    });
    holder.__fleetskewKeyring = { signature, ring };
    ring.catch(() => {
      if (holder.__fleetskewKeyring?.ring === ring) holder.__fleetskewKeyring = undefined;
    });
  }
  return holder.__fleetskewKeyring!.ring;
}

/** Forget the cached keyring (after the start created a key file, or in tests). */
export function resetKeyring(): void {
  holder.__fleetskewKeyring = undefined;
}

export async function sealSecret(plaintext: string | Uint8Array, context: string): Promise<Buffer> {
  return seal((await keyring()).current, plaintext, context);
}

export async function openSecret(envelope: Uint8Array, context: string): Promise<Buffer> {
  return openBytes((await keyring()).keys, envelope, context);
}

/**
 * A keyed digest for showing that a hidden value changed without revealing it: HMAC-SHA256 under
 * a key derived from the current secret key, so it cannot be checked against guesses offline.
 */
export async function secretDigest(value: Uint8Array | string): Promise<string> {
  const digestKey = Buffer.from(hkdfSync("sha256", (await keyring()).current.key, Buffer.alloc(0), "fleetskew content digest", 32));
  return `hmac-sha256:${createHmac("sha256", digestKey).update(value).digest("hex").slice(0, 32)}`;
}
