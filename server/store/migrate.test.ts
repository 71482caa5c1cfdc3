import { describe, expect, it } from "vitest";
import { checksumOf, MigrationError, planMigrations, scriptMatchesChecksum, type MigrationFile } from "./migrate";

const file = (name: string, sql: string): MigrationFile => ({ name, sql, checksum: checksumOf(sql) });
const applied = (f: MigrationFile, over: Partial<{ checksum: string; finished_at: Date | null; rolled_back_at: Date | null }> = {}) => ({
  migration_name: f.name,
  checksum: f.checksum,
  finished_at: new Date(),
  rolled_back_at: null,
  ...over,
});

describe("checksums", () => {
  it("is the sha256 of the script, as Prisma records it", () => {
    expect(checksumOf("SELECT 1;\n")).toMatch(/^[0-9a-f]{64}$/);
    expect(checksumOf("SELECT 1;\n")).not.toBe(checksumOf("SELECT 2;\n"));
  });

  it("accepts a script whose only change is its line endings", () => {
    const lf = "CREATE TABLE a (id int);\nCREATE TABLE b (id int);\n";
    const crlf = lf.replace(/\n/g, "\r\n");
    expect(scriptMatchesChecksum(crlf, checksumOf(lf))).toBe(true);
    expect(scriptMatchesChecksum(lf, checksumOf(crlf))).toBe(true);
    expect(scriptMatchesChecksum(lf.replace("b", "c"), checksumOf(lf))).toBe(false);
  });
});

describe("planMigrations", () => {
  const one = file("20260101000000_one", "CREATE TABLE one (id int);");
  const two = file("20260102000000_two", "CREATE TABLE two (id int);");

  it("returns the files not yet applied, in order", () => {
    expect(planMigrations([one, two], []).map((f) => f.name)).toEqual([one.name, two.name]);
    expect(planMigrations([one, two], [applied(one)]).map((f) => f.name)).toEqual([two.name]);
  });

  it("refuses a migration changed after it was applied", () => {
    const edited = file(one.name, "CREATE TABLE one (id bigint);");
    expect(() => planMigrations([edited, two], [applied(one)])).toThrow(MigrationError);
    expect(() => planMigrations([edited, two], [applied(one)])).toThrow(/20260101000000_one was changed after it was applied/);
  });

  it("refuses a database with a migration this version does not have", () => {
    expect(() => planMigrations([one], [applied(one), applied(two)])).toThrow(/does not have/);
  });

  it("refuses to continue over a migration that started but never finished", () => {
    expect(() => planMigrations([one, two], [applied(one, { finished_at: null })])).toThrow(/never finished/);
  });

  it("re-applies a migration that was rolled back", () => {
    expect(planMigrations([one], [applied(one, { rolled_back_at: new Date() })]).map((f) => f.name)).toEqual([one.name]);
  });
});
