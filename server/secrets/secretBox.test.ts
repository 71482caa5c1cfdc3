import { createCipheriv, randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createKeyFile, keyFileOf, readKeyring } from "./keyring";
import { envelopeInfo, keyIdOf, open, parseSecretKey, seal } from "./secretBox";

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));
const tempDir = async () => {
  const d = await mkdtemp(path.join(os.tmpdir(), "fleetskew-key-"));
  dirs.push(d);
  return d;
};

const keyOf = (fill: number) => parseSecretKey(Buffer.alloc(32, fill).toString("base64"));

/** An envelope as Fleetskew sealed them before key ids (version 1). */
function sealV1(key: Buffer, plaintext: string, context: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return Buffer.concat([Buffer.from([1]), iv, cipher.getAuthTag(), body]);
}

describe("secretBox", () => {
  const key = keyOf(7);

  it("round-trips, hides the plaintext and names the key that sealed it", () => {
    const sealed = seal(key, '{"token":"sha256~secret"}', "cluster:a");
    expect(sealed.toString("latin1")).not.toContain("secret");
    expect(envelopeInfo(sealed)).toEqual({ version: 2, keyId: key.id });
    expect(key.id).toBe(keyIdOf(Buffer.alloc(32, 7)));
    expect(open([key], sealed, "cluster:a")).toBe('{"token":"sha256~secret"}');
  });

  it("refuses another context, a key it was not sealed with, and tampering", () => {
    const sealed = seal(key, "x", "cluster:a");
    expect(() => open([key], sealed, "cluster:b")).toThrow(/altered or moved/);
    expect(() => open([keyOf(8)], sealed, "cluster:a")).toThrow(new RegExp(`sealed with key ${key.id}`));
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1]! ^= 1;
    expect(() => open([key], tampered, "cluster:a")).toThrow(/altered or moved/);
  });

  it("opens version 1 envelopes with whichever listed key sealed them", () => {
    const old = keyOf(9);
    const sealed = sealV1(old.key, "from before key ids", "cluster:a");
    expect(envelopeInfo(sealed)).toEqual({ version: 1, keyId: null });
    expect(open([key, old], sealed, "cluster:a")).toBe("from before key ids");
    expect(() => open([key], sealed, "cluster:a")).toThrow(/cannot be decrypted with any configured key/);
  });
});

describe("keyring", () => {
  it("takes the key and old keys from the environment", async () => {
    const ring = await readKeyring({
      secretKey: Buffer.alloc(32, 1).toString("base64"),
      oldSecretKeys: [Buffer.alloc(32, 2).toString("base64")],
      dataDir: "/nonexistent",
    });
    expect(ring?.source).toBe("environment");
    expect(ring?.keys.map((k) => k.id)).toEqual([keyOf(1).id, keyOf(2).id]);
    expect(() => parseSecretKey("short")).toThrow(/32 bytes in base64/);
  });

  it("reads a key file whose first line seals and whose other lines open, and creates one with mode 0600", async () => {
    const dataDir = await tempDir();
    expect(await readKeyring({ secretKey: undefined, oldSecretKeys: [], dataDir })).toBeNull();
    await createKeyFile(dataDir);
    const first = (await readFile(keyFileOf(dataDir), "utf8")).trim();
    expect((await stat(keyFileOf(dataDir))).mode & 0o777).toBe(0o600);
    // A second start (or a second process) keeps the key that is there.
    await createKeyFile(dataDir);
    expect((await readFile(keyFileOf(dataDir), "utf8")).trim()).toBe(first);

    const next = randomBytes(32).toString("base64");
    await writeFile(keyFileOf(dataDir), `# rotated\n${next}\n${first}\n`);
    const ring = await readKeyring({ secretKey: undefined, oldSecretKeys: [], dataDir });
    expect(ring?.current.id).toBe(parseSecretKey(next).id);
    expect(ring?.keys.map((k) => k.id)).toEqual([parseSecretKey(next).id, parseSecretKey(first).id]);
  });
});
