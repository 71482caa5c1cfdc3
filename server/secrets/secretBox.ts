import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

/**
 * Encryption at rest (cluster credentials, the MachineConfigs kept for offline previews):
 * AES-256-GCM. Envelope version 2 = 0x02 | key id (4) | iv (12) | tag (16) | ciphertext, where the
 * key id names the key that sealed it, so older keys can stay listed for opening while everything is
 * re-sealed under a new one. Version 1 (0x01 | iv | tag | ciphertext, no key id) is what Fleetskew
 * wrote before key ids; it is still opened, by trying each key. The context string (e.g. the
 * cluster's name) is authenticated as associated data, so one row's secret cannot be swapped into
 * another row.
 */
const V1 = 1;
const V2 = 2;
const ID_BYTES = 4;

export class SecretKeyError extends Error {
  override name = "SecretKeyError";
}

export type SecretKey = { id: string; key: Buffer };

/** A key's id: derived from the key, so it names it without revealing it. */
export const keyIdOf = (key: Buffer) =>
  createHash("sha256")
    .update("fleetskew key id\0")
    .update(key)
    .digest("hex")
    .slice(0, ID_BYTES * 2);

export function parseSecretKey(text: string, what = "FLEETSKEW_SECRET_KEY"): SecretKey {
  const key = Buffer.from(text.trim(), "base64");
  if (key.length !== 32) throw new SecretKeyError(`${what} must be 32 bytes in base64 (make one with: openssl rand -base64 32)`);
  return { id: keyIdOf(key), key };
}

export function seal(key: SecretKey, plaintext: string | Uint8Array, context: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key.key, iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([typeof plaintext === "string" ? cipher.update(plaintext, "utf8") : cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([Buffer.from([V2]), Buffer.from(key.id, "hex"), iv, cipher.getAuthTag(), body]);
}

/** The version and key id of an envelope (null id: version 1, sealed before key ids). */
export function envelopeInfo(envelope: Uint8Array): { version: number; keyId: string | null } | null {
  if (envelope.length >= 1 + ID_BYTES + 28 && envelope[0] === V2)
    return { version: V2, keyId: Buffer.from(envelope.subarray(1, 1 + ID_BYTES)).toString("hex") };
  if (envelope.length >= 29 && envelope[0] === V1) return { version: V1, keyId: null };
  return null;
}

function decrypt(key: Buffer, iv: Uint8Array, tag: Uint8Array, body: Uint8Array, context: string): Buffer | null {
  const decipher = createDecipheriv("aes-256-gcm", key, iv);
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(body), decipher.final()]);
  } catch {
    return null;
  }
}

/** Opens an envelope with whichever of `keys` sealed it; a SecretKeyError says which key is missing. */
export function openBytes(keys: readonly SecretKey[], envelope: Uint8Array, context: string): Buffer {
  const info = envelopeInfo(envelope);
  if (!info) throw new SecretKeyError("stored secret is in an unknown format");
  if (info.version === V2) {
    const key = keys.find((k) => k.id === info.keyId);
    if (!key)
      throw new SecretKeyError(
        `stored secret was sealed with key ${info.keyId}, which is neither the secret key nor one of the old keys listed (FLEETSKEW_SECRET_KEYS_OLD)`,
      );
    const at = 1 + ID_BYTES;
    const plain = decrypt(
      key.key,
      envelope.subarray(at, at + 12),
      envelope.subarray(at + 12, at + 28),
      envelope.subarray(at + 28),
      context,
    );
    if (!plain) throw new SecretKeyError(`stored secret does not open with key ${key.id}: it was altered or moved from another row`);
    return plain;
  }
  for (const key of keys) {
    const plain = decrypt(key.key, envelope.subarray(1, 13), envelope.subarray(13, 29), envelope.subarray(29), context);
    if (plain) return plain;
  }
  throw new SecretKeyError("stored secret cannot be decrypted with any configured key (was FLEETSKEW_SECRET_KEY changed?)");
}

export const open = (keys: readonly SecretKey[], envelope: Uint8Array, context: string): string =>
  openBytes(keys, envelope, context).toString("utf8");
