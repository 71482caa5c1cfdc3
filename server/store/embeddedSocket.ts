import net from "node:net";
import type { PGlite } from "@electric-sql/pglite";

/**
 * Serves the embedded database (one PGlite session) to several connections, one unit of work at a
 * time, as a connection pooler in transaction mode does with one server connection: a connection
 * holds the session from its first message until the database answers ReadyForQuery with status
 * idle, that is to the end of its statement, its extended-protocol sequence (Parse … Sync) or its
 * transaction (BEGIN … COMMIT), and other connections' messages wait meanwhile.
 *
 * Why not @electric-sql/pglite-socket's server with more connections: it queues single messages.
 * Inside an explicit transaction it keeps to one connection, but an extended-protocol sequence of one
 * connection (Parse, Bind, Execute, Sync: every parameterised query Prisma and pg-boss send) can be
 * interleaved with another's, which then binds the wrong statement on the shared session.
 *
 * Limits, as with any transaction-mode pooler: session state is shared (`SET` without LOCAL, session
 * advisory locks, named prepared statements, LISTEN); Fleetskew's clients use none of these once
 * the start script has migrated. A connection that holds the session and says nothing for
 * IDLE_HOLD_MS (a stalled process in the middle of a transaction) is cut off and its transaction
 * rolled back, so that it cannot stop every other connection.
 */
const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;
const READY_FOR_QUERY = 0x5a; // 'Z'
const TERMINATE = 0x58; // 'X'
const SYNC = new Uint8Array([0x53, 0, 0, 0, 4]); // 'S'
export const IDLE_HOLD_MS = 60_000;

/** A FIFO lock: the session, handed to one connection at a time. */
class SessionLock {
  private held = false;
  private readonly waiting: (() => void)[] = [];
  acquire(): Promise<void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held = false;
  }
}

/** Finds ReadyForQuery messages in the stream the database sends, without keeping message bodies. */
class ReadyScanner {
  private header = Buffer.alloc(0);
  private skip = 0;
  private readyNext = false;
  /** The status of the last ReadyForQuery seen: I idle, T in a transaction, E in a failed one. */
  status: string | null = null;

  feed(chunk: Uint8Array): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.skip > 0) {
        if (this.readyNext) {
          this.status = String.fromCharCode(chunk[i]!);
          this.readyNext = false;
        }
        const n = Math.min(this.skip, chunk.length - i);
        this.skip -= n;
        i += n;
        continue;
      }
      const take = Math.min(5 - this.header.length, chunk.length - i);
      this.header = Buffer.concat([this.header, chunk.subarray(i, i + take)]);
      i += take;
      if (this.header.length < 5) continue;
      const type = this.header[0]!;
      this.skip = this.header.readInt32BE(1) - 4;
      this.readyNext = type === READY_FOR_QUERY && this.skip > 0;
      this.header = Buffer.alloc(0);
    }
  }
}

export type SessionServer = { stop(): Promise<void> };

export async function serveEmbeddedSession(db: PGlite, socketPath: string, maxConnections = 8): Promise<SessionServer> {
  const lock = new SessionLock();
  const connections = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    if (connections.size >= maxConnections) {
      socket.end("Too many connections\n");
      return;
    }
    connections.add(socket);
    serveConnection(db, lock, socket).finally(() => connections.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  return {
    async stop() {
      for (const socket of connections) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function serveConnection(db: PGlite, lock: SessionLock, socket: net.Socket): Promise<void> {
  let buffer = Buffer.alloc(0);
  let started = false;
  let holding = false;
  let closed = false;
  let idle: NodeJS.Timeout | undefined;
  const scanner = new ReadyScanner();
  let chain = Promise.resolve();

  const release = async () => {
    if (!holding) return;
    // Whatever the connection left open must not outlive it: an unfinished sequence, a transaction.
    if (scanner.status !== "I") {
      await db.runExclusive(() => db.execProtocolRaw(SYNC)).catch(() => undefined);
      if (db.isInTransaction()) await db.exec("ROLLBACK").catch(() => undefined);
    }
    holding = false;
    clearTimeout(idle);
    lock.release();
  };

  const run = async (message: Uint8Array) => {
    if (!holding) {
      await lock.acquire();
      holding = true;
      if (closed) return release();
    }
    clearTimeout(idle);
    scanner.status = null;
    await db.runExclusive(() =>
      db.execProtocolRawStream(message, {
        onRawData: (data) => {
          scanner.feed(data);
          if (!socket.destroyed) socket.write(Buffer.from(data));
        },
      }),
    );
    if (scanner.status === "I") await release();
    else {
      idle = setTimeout(() => socket.destroy(), IDLE_HOLD_MS);
      idle.unref();
    }
  };

  const messages = (): Uint8Array[] => {
    const out: Uint8Array[] = [];
    for (;;) {
      if (!started) {
        if (buffer.length < 8) break;
        const length = buffer.readInt32BE(0);
        const code = buffer.readInt32BE(4);
        if (buffer.length < length) break;
        const message = buffer.subarray(0, length);
        buffer = buffer.subarray(length);
        if (code === SSL_REQUEST || code === GSS_REQUEST) socket.write("N");
        else if (code === CANCEL_REQUEST) socket.end();
        else if (code === PROTOCOL_3) {
          started = true;
          out.push(new Uint8Array(message));
        } else socket.destroy();
        continue;
      }
      if (buffer.length < 5) break;
      const length = 1 + buffer.readInt32BE(1);
      if (buffer.length < length) break;
      const message = buffer.subarray(0, length);
      buffer = buffer.subarray(length);
      if (message[0] === TERMINATE) {
        socket.end();
        break;
      }
      out.push(new Uint8Array(message));
    }
    return out;
  };

  return new Promise<void>((resolve) => {
    socket.on("data", (data) => {
      buffer = Buffer.concat([buffer, data]);
      for (const message of messages()) chain = chain.then(() => (closed ? undefined : run(message))).catch(() => void socket.destroy());
    });
    socket.on("error", () => undefined);
    socket.on("close", () => {
      closed = true;
      chain = chain
        .then(release)
        .catch(() => undefined)
        .finally(resolve);
    });
  });
}
