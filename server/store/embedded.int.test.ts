import { spawn } from "node:child_process";
import { mkdtemp, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { migrationsDir, projectMigrations } from "../testing/database";
import { closeDb } from "./db";
import { startEmbeddedDatabase } from "./embedded";
import { appliedMigrationCount } from "./health";
import { migrate } from "./migrate";
import { createUser, findUserForLogin, listUsers, updateUser } from "./users";

describe("embedded database (PGlite over a Unix socket)", () => {
  let dataDir: string;
  afterAll(async () => {
    await closeDb();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("runs the same migrations and store code as Postgres, and keeps data across restarts", async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "fleetskew-embedded-"));
    let embedded = await startEmbeddedDatabase(dataDir);
    expect(embedded.url).toMatch(/^postgresql:\/\/postgres@localhost\/postgres\?host=/);
    // No TCP port: the socket sits in a directory only this user may enter.
    expect((await stat(embedded.socketDir)).mode & 0o777).toBe(0o700);
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

  it("cannot be opened by another local user", async () => {
    if (process.getuid?.() !== 0) return; // only root can run a process as another user here
    const dir = await mkdtemp(path.join(os.tmpdir(), "fleetskew-embedded-"));
    const embedded = await startEmbeddedDatabase(dir);
    try {
      // The same client code, as the unprivileged user "nobody".
      const script = `const pg=require("pg");const c=new pg.Client({connectionString:process.argv[1]});c.connect().then(()=>{console.log("connected");process.exit(0)},(e)=>{console.log(e.code);process.exit(1)})`;
      const child = spawn(process.execPath, ["-e", script, embedded.url], { uid: 65534, gid: 65534, cwd: process.cwd() });
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
      expect(out.trim()).toBe("EACCES");
      expect(code).toBe(1);
    } finally {
      await embedded.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
