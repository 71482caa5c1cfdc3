/**
 * What an API token's secret looks like: `fsk_`, then 43 base62 characters of randomness (32 bytes
 * of it), then a 6-character base62 CRC32 of that randomness. The fixed prefix and the checksum let
 * a secret scanner (GitHub's, a pre-commit hook) tell a real Fleetskew token from any 53 characters
 * without asking the server, as GitHub's own `ghp_` tokens do
 * (https://github.blog/engineering/platform-security/behind-githubs-new-authentication-token-formats/).
 * Pure: the randomness is given by the caller.
 */

export const TOKEN_PREFIX = "fsk_";
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** 62^43 > 2^256: 32 random bytes always fit in 43 base62 characters. */
export const RANDOM_CHARS = 43;
export const CHECKSUM_CHARS = 6;
export const SECRET_LENGTH = TOKEN_PREFIX.length + RANDOM_CHARS + CHECKSUM_CHARS;
/** How much of a secret is kept and shown to tell tokens apart: `fsk_` and 6 characters. */
export const DISPLAY_PREFIX_LENGTH = TOKEN_PREFIX.length + 6;
export const MAX_TOKEN_DAYS = 365;

const SHAPE = new RegExp(`^${TOKEN_PREFIX}[0-9A-Za-z]{${RANDOM_CHARS + CHECKSUM_CHARS}}$`);

/** Base62 of a non-negative integer, left-padded with zeros to `width`. */
export function base62(value: bigint, width: number): string {
  let out = "";
  let rest = value;
  while (rest > 0n) {
    out = ALPHABET[Number(rest % 62n)]! + out;
    rest /= 62n;
  }
  return out.padStart(width, "0");
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (IEEE 802.3, as zlib computes it) of a text's UTF-8 bytes. */
export function crc32(text: string): number {
  let crc = 0xffffffff;
  for (const byte of new TextEncoder().encode(text)) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

const checksumOf = (random: string) => base62(BigInt(crc32(random)), CHECKSUM_CHARS);

/** The secret made from 32 random bytes. */
export function secretFromRandom(bytes: Uint8Array): string {
  if (bytes.length !== 32) throw new Error("an API token needs exactly 32 random bytes");
  const random = base62(BigInt(`0x${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`), RANDOM_CHARS);
  return `${TOKEN_PREFIX}${random}${checksumOf(random)}`;
}

/** The random part of a secret (what a leak would expose), for tests that look for it. */
export const randomPartOf = (secret: string) => secret.slice(TOKEN_PREFIX.length, TOKEN_PREFIX.length + RANDOM_CHARS);

/** Whether a text has the shape and checksum of a Fleetskew token: checked before the database is asked. */
export function isWellFormedSecret(text: string): boolean {
  if (!SHAPE.test(text)) return false;
  const random = randomPartOf(text);
  return text.slice(TOKEN_PREFIX.length + RANDOM_CHARS) === checksumOf(random);
}

/** The short, public part of a secret kept beside its hash, so people can tell their tokens apart. */
export const displayPrefix = (secret: string) => secret.slice(0, DISPLAY_PREFIX_LENGTH);
