import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from "node:crypto";

const scrypt = (password: string, salt: Buffer, keylen: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => scryptCb(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))));

// OWASP's scrypt floor (N=2^17 would be stronger but costs ~128 MiB per concurrent login).
const PARAMS = { N: 1 << 15, r: 8, p: 1, keylen: 64 };
const maxmem = 128 * PARAMS.N * PARAMS.r * 2;

/** Encodes as scrypt$N$r$p$salt$key (base64) so parameters can be raised without breaking old hashes. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password.normalize("NFKC"), salt, PARAMS.keylen, { N: PARAMS.N, r: PARAMS.r, p: PARAMS.p, maxmem });
  return ["scrypt", PARAMS.N, PARAMS.r, PARAMS.p, salt.toString("base64"), key.toString("base64")].join("$");
}

export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const parts = encoded.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const salt = Buffer.from(parts[4]!, "base64");
  const expected = Buffer.from(parts[5]!, "base64");
  if (!N || !r || !p || expected.length === 0) return false;
  const key = await scrypt(password.normalize("NFKC"), salt, expected.length, { N, r, p, maxmem: 128 * N * r * 2 });
  return timingSafeEqual(key, expected);
}

/** A hash of a random password, checked against when the username is unknown so timing reveals nothing. */
let decoy: Promise<string> | undefined;
export const decoyHash = () => (decoy ??= hashPassword(randomBytes(16).toString("hex")));

/** A password people can read aloud to a colleague: 4 groups of 5 from an unambiguous alphabet (~103 bits). */
export function generatePassword(): string {
  const alphabet = "abcdefghjkmnpqrstuvwxyzACDEFGHJKLMNPQRSTUVWXYZ23456789";
  const groups: string[] = [];
  for (let g = 0; g < 4; g++) {
    let group = "";
    while (group.length < 5) {
      const byte = randomBytes(1)[0]!;
      // Rejection sampling keeps every character equally likely.
      if (byte < 256 - (256 % alphabet.length)) group += alphabet[byte % alphabet.length];
    }
    groups.push(group);
  }
  return groups.join("-");
}
