import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadSecretKey, open, parseSecretKey, seal } from "./secretBox";

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

describe("secretBox", () => {
  const key = Buffer.alloc(32, 7);

  it("round-trips, and hides the plaintext", () => {
    const sealed = seal(key, '{"token":"sha256~secret"}', "cluster:a");
    expect(sealed.toString("latin1")).not.toContain("secret");
    expect(open(key, sealed, "cluster:a")).toBe('{"token":"sha256~secret"}');
  });

  it("refuses another context, another key, and tampering", () => {
    const sealed = seal(key, "x", "cluster:a");
    expect(() => open(key, sealed, "cluster:b")).toThrow(/cannot be decrypted/);
    expect(() => open(Buffer.alloc(32, 8), sealed, "cluster:a")).toThrow(/cannot be decrypted/);
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1]! ^= 1;
    expect(() => open(key, tampered, "cluster:a")).toThrow(/cannot be decrypted/);
  });

  it("takes a base64 key from the environment or creates one in the data directory with mode 0600", async () => {
    expect(() => parseSecretKey("short")).toThrow(/32 bytes in base64/);
    expect((await loadSecretKey({ env: key.toString("base64"), dataDir: "/nonexistent" })).equals(key)).toBe(true);
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "fleetskew-key-"));
    dirs.push(dataDir);
    const first = await loadSecretKey({ dataDir });
    expect((await loadSecretKey({ dataDir })).equals(first)).toBe(true);
    expect((await stat(path.join(dataDir, "secret.key"))).mode & 0o777).toBe(0o600);
    expect((await readFile(path.join(dataDir, "secret.key"), "utf8")).trim()).toBe(first.toString("base64"));
  });
});
