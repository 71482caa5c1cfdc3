import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { migrationsDir, projectMigrations } from "../testing/database";
import { closeDb } from "./db";
import { startEmbeddedDatabase } from "./embedded";
import { appliedMigrationCount } from "./health";
import { migrate } from "./migrate";
import { createUser, findUserForLogin, listUsers, updateUser } from "./users";

describe("embedded database (PGlite over a loopback socket)", () => {
  let dataDir: string;
  afterAll(async () => {
    await closeDb();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("runs the same migrations and store code as Postgres, and keeps data across restarts", async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "fleetskew-embedded-"));
    let embedded = await startEmbeddedDatabase(dataDir);
    expect(embedded.url).toMatch(/^postgresql:\/\/postgres@127\.0\.0\.1:\d+\/postgres/);
    expect((await migrate(embedded.url, { dir: migrationsDir })).applied).toEqual(projectMigrations());

    process.env.DATABASE_URL = embedded.url;
    process.env.FLEETSKEW_DATABASE_MODE = "embedded";
    const user = await createUser({ username: "ada", role: "technician", passwordHash: "scrypt$x" }, { actor: null });
    // An interactive transaction (row locks, guard, audit) through the single-connection pool.
    await updateUser(user.id, { role: "approver" }, { actor: "test" }, () => undefined);
    expect(await appliedMigrationCount()).toBe(projectMigrations().length);
    await closeDb();
    await embedded.stop();

    embedded = await startEmbeddedDatabase(dataDir);
    process.env.DATABASE_URL = embedded.url;
    try {
      expect((await migrate(embedded.url, { dir: migrationsDir })).applied).toEqual([]);
      expect((await listUsers()).map((u) => [u.username, u.role])).toEqual([["ada", "approver"]]);
      expect((await findUserForLogin("ada"))?.passwordHash).toBe("scrypt$x");
    } finally {
      await closeDb();
      await embedded.stop();
    }
  });
});
