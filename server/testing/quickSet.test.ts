import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createTestDatabase, QUICK_SET_NEEDS_NO_DATABASE } from "./postgres";
import { getDb } from "../store/db";

const root = path.resolve(__dirname, "../..");

function testFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".test.ts"))
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)));
}

describe("the quick test set", () => {
  it("has no database: a test that asks for one fails at once", async () => {
    await expect(createTestDatabase()).rejects.toThrow(QUICK_SET_NEEDS_NO_DATABASE);
    expect(() => getDb()).toThrow(/DATABASE_URL is not set/);
  });

  it("holds no test file that uses the test database helpers", () => {
    // The helpers fail at run time anyway; this names the file before anything runs.
    const quick = ["server", "scripts", "components", "deploy"].flatMap(testFiles).filter((f) => !f.endsWith(".int.test.ts"));
    const usingDatabase = quick.filter((f) =>
      /testing\/(database|postgres)"|useMigratedDatabase|createTestDatabase\(/.test(readFileSync(path.join(root, f), "utf8")),
    );
    expect(usingDatabase.filter((f) => f !== "server/testing/quickSet.test.ts")).toEqual([]);
    expect(quick.length).toBeGreaterThan(50);
  });
});
