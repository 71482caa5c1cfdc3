import { createHash } from "node:crypto";
import { ConfigError } from "../config/env";
import { readKeyRecord, replaceKeyRecord } from "../store/processes";
import type { Keyring } from "./keyring";
import type { SecretKey } from "./secretBox";

/**
 * One secret key for every process on a database. Each process, as it starts, compares its current
 * key with the one recorded in the database (by fingerprint, never the key):
 *
 * - no record yet: its key becomes the record;
 * - the record is its current key: it starts;
 * - the record is one of its old keys (FLEETSKEW_SECRET_KEYS_OLD, or a later line of the key file):
 *   this is a rotation, and the record moves to its current key. Processes of the rotation's new
 *   configuration start; one restarted with the old configuration no longer does, since it could not
 *   open what the new key seals;
 * - anything else: it refuses to start, naming both key ids.
 *
 * A key's fingerprint is a SHA-256 of it under a label of its own; the key is 32 random bytes, so the
 * fingerprint reveals nothing of it.
 */
export const keyFingerprint = (key: SecretKey) => createHash("sha256").update("fleetskew key fingerprint\0").update(key.key).digest("hex");

export type KeyAgreement = { outcome: "recorded" | "agreed" | "rotated"; previousKeyId?: string };

export async function agreeOnSecretKey(ring: Keyring, processName: string): Promise<KeyAgreement> {
  const mine = { keyId: ring.current.id, fingerprint: keyFingerprint(ring.current), recordedBy: processName };
  // A few attempts: another process may record or rotate between our read and our write.
  for (let attempt = 0; attempt < 3; attempt++) {
    const record = await readKeyRecord();
    if (!record) {
      if (await replaceKeyRecord(null, mine)) return { outcome: "recorded" };
      continue;
    }
    if (record.fingerprint === mine.fingerprint) return { outcome: "agreed" };
    const old = ring.keys.find((k) => k !== ring.current && keyFingerprint(k) === record.fingerprint);
    if (old) {
      if (await replaceKeyRecord(record.fingerprint, mine)) return { outcome: "rotated", previousKeyId: record.keyId };
      continue;
    }
    throw new ConfigError(
      `this process seals secrets with key ${mine.keyId}, but the other processes on this database use key ${record.keyId} ` +
        `(recorded by ${record.recordedBy} at ${record.updatedAt.toISOString()}); give every process the same FLEETSKEW_SECRET_KEY, ` +
        `or, to rotate, the new key as FLEETSKEW_SECRET_KEY with key ${record.keyId} listed in FLEETSKEW_SECRET_KEYS_OLD (docs/operations.md)`,
    );
  }
  throw new ConfigError("the secret key record kept changing while this process started; start it again");
}
