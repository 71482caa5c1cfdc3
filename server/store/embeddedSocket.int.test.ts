import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedDatabase, type EmbeddedDatabase } from "./embedded";

/**
 * The embedded database is one PGlite session shared by the web server and its background process:
 * each connection's statements, extended-protocol sequences and transactions must run whole, never
 * interleaved with another connection's.
 */
describe("the embedded database's socket, shared by several connections", () => {
  let dataDir: string;
  let embedded: EmbeddedDatabase;
  const clients: pg.Client[] = [];
  const connect = async () => {
    const client = new pg.Client({ connectionString: embedded.url });
    client.on("error", () => undefined);
    await client.connect();
    clients.push(client);
    return client;
  };
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "fleetskew-embedded-socket-"));
    embedded = await startEmbeddedDatabase(dataDir);
    const setup = await connect();
    await setup.query("CREATE TABLE counted (n int)");
  });
  afterAll(async () => {
    for (const client of clients) await client.end().catch(() => undefined);
    await embedded.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("runs one connection's transaction whole: another connection waits and never sees its uncommitted rows", async () => {
    const [a, b] = [await connect(), await connect()];
    await a.query("BEGIN");
    await a.query("INSERT INTO counted VALUES ($1)", [1]);
    // Asked while a's transaction is open: it waits for the rollback, then counts nothing.
    const counted = b.query<{ n: number }>("SELECT count(*)::int AS n FROM counted WHERE n >= $1", [0]);
    let answered = false;
    void counted.then(() => (answered = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(answered).toBe(false);
    await a.query("ROLLBACK");
    expect((await counted).rows[0]!.n).toBe(0);
  });

  it("keeps parameterised queries (Parse, Bind, Execute, Sync) of many connections apart", async () => {
    const connections = await Promise.all([connect(), connect(), connect()]);
    // Each connection asks one query at a time (a client's own queue is deprecated in pg), the three at once.
    const answers = (
      await Promise.all(
        connections.map(async (client, c) => {
          const mine: [string, string][] = [];
          for (let i = 0; i < 60; i++) {
            const r = await client.query<{ v: string }>("SELECT $1::text AS v", [`${c}-${i}`]);
            mine.push([r.rows[0]!.v, `${c}-${i}`]);
          }
          return mine;
        }),
      )
    ).flat();
    expect(answers).toHaveLength(180);
    for (const [got, sent] of answers) expect(got).toBe(sent);
  });

  it("rolls back what a connection that went away left open, and goes on with the others", async () => {
    const [a, b] = [await connect(), await connect()];
    await a.query("BEGIN");
    await a.query("INSERT INTO counted VALUES (2)");
    const waiting = b.query<{ n: number }>("SELECT count(*)::int AS n FROM counted");
    // As a killed process's connection would: the socket closes mid-transaction.
    (a as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    expect((await waiting).rows[0]!.n).toBe(0);
    await b.query("INSERT INTO counted VALUES (3)");
    expect((await b.query<{ n: number }>("SELECT count(*)::int AS n FROM counted")).rows[0]!.n).toBe(1);
  });
});
