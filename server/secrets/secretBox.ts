import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";

/**
 * Encryption at rest for cluster credentials: AES-256-GCM, envelope = version(1) | iv(12) | tag(16) |
 * ciphertext. The context string (e.g. the cluster's name) is authenticated as associated data, so
 * one cluster's credentials cannot be swapped into another row.
 */
const VERSION = 1;

export class SecretKeyError extends Error {
  override name = "SecretKeyError";
}

export function parseSecretKey(text: string): Buffer {
  const key = Buffer.from(text.trim(), "base64");
  if (key.length !== 32)
    throw new SecretKeyError("FLEETSKEW_SECRET_KEY must be 32 bytes in base64 (make one with: openssl rand -base64 32)");
  return key;
}

/** FLEETSKEW_SECRET_KEY, else <dataDir>/secret.key, created (mode 0600) on first use. */
export async function loadSecretKey(options: { env?: string; dataDir: string }): Promise<Buffer> {
  if (options.env) return parseSecretKey(options.env);
  const file = path.join(options.dataDir, "secret.key");
  try {
    return parseSecretKey(await readFile(file, "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  try {
    await writeFile(file, `${key.toString("base64")}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    // Another process created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return parseSecretKey(await readFile(file, "utf8"));
    throw error;
  }
  await chmod(file, 0o600);
  return key;
}

export function seal(key: Buffer, plaintext: string, context: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
}

export function open(key: Buffer, envelope: Buffer, context: string): string {
  if (envelope.length < 29 || envelope[0] !== VERSION) throw new SecretKeyError("stored credentials are in an unknown format");
  const decipher = createDecipheriv("aes-256-gcm", key, envelope.subarray(1, 13));
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(envelope.subarray(13, 29));
  try {
    return Buffer.concat([decipher.update(envelope.subarray(29)), decipher.final()]).toString("utf8");
  } catch {
    throw new SecretKeyError("stored credentials cannot be decrypted with this secret key (was FLEETSKEW_SECRET_KEY changed?)");
  }
}
