import http2 from "node:http2";
import { isIP } from "node:net";
import tls from "node:tls";
import type { OpenStream } from "./directGet";

/*
 * One HTTP/2 connection per cluster for a sweep's reads. Over HTTP/1.1 a sweep's twenty-odd GETs
 * share two connections, and since the API server closes a connection idle for 90 s (k8s.io/apiserver
 * pkg/server/secure_serving.go) and sweeps are minutes apart, every sweep opened both again: two TLS
 * handshakes, two session resumptions, and the requests' headers sent whole. Over HTTP/2 they are
 * streams of one connection with compressed headers (the API server speaks HTTP/2 unless it was
 * started without it: docs/benchmarks.md, "One HTTP/2 connection per cluster"). A server that does not agree to h2 in the TLS
 * handshake (ALPN) is asked over HTTP/1.1 from then on, as before.
 */

export type H2Options = {
  /** The TLS context of the cluster's credentials (its CA, and a client certificate if any), asked for at each connect. */
  secureContext: () => tls.SecureContext;
  rejectUnauthorized: boolean;
  /** How long connecting may take. */
  timeoutMs: number;
};

/** How long an idle connection is kept when no read ends it (reads outside a sweep: previews, bundles). */
const IDLE_MS = 30_000;

/*
 * How much the server may send before Fleetskew has read it, per stream and per connection. HTTP/2's
 * default is 64 KiB for both, one window per round trip: a 20 MiB list over a 100 ms link would take
 * half a minute. Go's HTTP/2 client, which client-go uses, announces 4 MiB a stream and 1 GiB a
 * connection (`transportDefaultStreamFlow`, `transportDefaultConnFlow` in golang.org/x/net/http2
 * transport.go); the connection's is kept well under what one sweep may read at all (MAX_READ_BYTES).
 */
const STREAM_WINDOW = 4 * 1024 * 1024;
const CONNECTION_WINDOW = 64 * 1024 * 1024;

export class H2Origin {
  private session: http2.ClientHttp2Session | null = null;
  private connecting: Promise<http2.ClientHttp2Session | null> | null = null;
  /** The server chose HTTP/1.1: every request goes through the HTTP/1.1 connections. */
  private http1 = false;
  /** The last TLS session, offered again so the next connection resumes it instead of a full handshake. */
  private tlsSession: Buffer | undefined;
  /** Long-lived streams (watches) open on the connection: while any is, it is kept between sweeps. */
  private held = 0;

  constructor(
    readonly origin: URL,
    private readonly options: H2Options,
  ) {}

  /** The connection to send a request on; null when the server speaks only HTTP/1.1. Rejects with the connection's error. */
  async connection(): Promise<http2.ClientHttp2Session | null> {
    if (this.http1) return null;
    const open = this.session;
    if (open && !open.closed && !open.destroyed) return open;
    return (this.connecting ??= this.connect().finally(() => (this.connecting = null)));
  }

  /** Opens a request's stream on the connection (./directGet.ts H2Requests); null when the server speaks only HTTP/1.1. */
  async opener(): Promise<OpenStream | null> {
    const session = await this.connection();
    return session ? (headers) => session.request(headers) : null;
  }

  /** Whether an HTTP/2 connection is open now (a watch can be opened on it). */
  get connected(): boolean {
    const session = this.session;
    return !!session && !session.closed && !session.destroyed;
  }

  /**
   * Opens a long-lived stream (a watch) on the open connection; null when there is none. The
   * connection is kept while any such stream is open: neither a sweep's end nor idleness closes it.
   */
  openStream(headers: http2.OutgoingHttpHeaders): http2.ClientHttp2Stream | null {
    const session = this.session;
    if (!session || session.closed || session.destroyed) return null;
    const stream = session.request(headers);
    this.held++;
    stream.once("close", () => this.held--);
    return stream;
  }

  /**
   * Whether the open connection still answers: a PING and its acknowledgement within `timeoutMs`
   * (as Go's HTTP/2 client checks a connection that has been quiet: ReadIdleTimeout, PingTimeout).
   * One that does not is dropped, and every stream on it ends.
   */
  alive(timeoutMs: number): Promise<boolean> {
    const session = this.session;
    if (!session || session.closed || session.destroyed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        session.destroy();
        resolve(false);
      }, timeoutMs);
      const sent = session.ping((error) => {
        clearTimeout(timer);
        if (error) session.destroy();
        resolve(!error);
      });
      if (!sent) {
        clearTimeout(timer);
        resolve(false);
      }
    });
  }

  /** Ends the connection once its requests in flight are done (a sweep's end); the next request opens another. Kept while it carries watches. */
  close(): void {
    if (this.held === 0) this.closeWithStreams();
  }

  /**
   * Ends the connection whatever it carries: its streams finish (watches just stopped, whose streams
   * close a moment later) and none opens on it; the next request opens another.
   */
  closeWithStreams(): void {
    const session = this.session;
    this.session = null;
    session?.close();
  }

  /** Drops the connection at once (the client is closed). */
  destroy(): void {
    const session = this.session;
    this.session = null;
    session?.destroy();
  }

  private connect(): Promise<http2.ClientHttp2Session | null> {
    const host = this.origin.hostname.replace(/^\[|\]$/g, "");
    const port = Number(this.origin.port || 443);
    return new Promise((resolve, reject) => {
      const socket = tls.connect({
        host,
        port,
        servername: isIP(host) ? undefined : host,
        secureContext: this.options.secureContext(),
        rejectUnauthorized: this.options.rejectUnauthorized,
        ALPNProtocols: ["h2", "http/1.1"],
        session: this.tlsSession,
      });
      const timer = setTimeout(() => {
        const error = new Error(`no TLS connection to ${this.origin.host} in ${this.options.timeoutMs} ms`);
        error.name = "TimeoutError";
        fail(error);
      }, this.options.timeoutMs);
      const fail = (error: unknown) => {
        clearTimeout(timer);
        socket.destroy();
        reject(error);
      };
      socket.on("session", (session: Buffer) => (this.tlsSession = session));
      socket.once("error", fail);
      socket.once("secureConnect", () => {
        clearTimeout(timer);
        socket.off("error", fail);
        if (socket.alpnProtocol !== "h2") {
          this.http1 = true;
          socket.destroy();
          return resolve(null);
        }
        const session = http2.connect(this.origin.origin, {
          createConnection: () => socket,
          settings: { initialWindowSize: STREAM_WINDOW },
        });
        session.once("connect", () => session.setLocalWindowSize(CONNECTION_WINDOW));
        // A connection that fails or is told to go away takes no new requests; the next opens another.
        const forget = () => {
          if (this.session === session) this.session = null;
        };
        session.on("error", forget);
        session.on("goaway", forget);
        session.on("close", forget);
        session.setTimeout(IDLE_MS, () => {
          if (this.held === 0 || this.session !== session) session.close();
        });
        // An idle connection does not keep the process alive (a collector stopping, a test ending).
        session.unref();
        this.session = session;
        resolve(session);
      });
    });
  }
}

/**
 * HTTP/2 connections to one server that many clusters' reads share (a hub's cluster-proxy:
 * ./proxyConnections.ts). A stream opens on the connection with the fewest streams open, and on a new
 * connection when every one holds as many as the server allows (its SETTINGS_MAX_CONCURRENT_STREAMS:
 * 250 on Go's server), as Go's HTTP/2 client does unless told to queue (golang.org/x/net/http2
 * transport.go, StrictMaxConcurrentStreams). Queued behind that limit on one connection, the reads of
 * clusters that hang would hold up the reads of every other cluster of the hub until they time out.
 */
export class H2Pool {
  /** One origin per connection, kept after its connection closes so the next resumes its TLS session. */
  private readonly origins: H2Origin[] = [];
  /** The open connections and how many streams each carries. */
  private readonly open = new Map<http2.ClientHttp2Session, number>();
  private growing: Promise<void> | null = null;
  /** The server chose HTTP/1.1. */
  private http1 = false;

  constructor(
    readonly origin: URL,
    private readonly options: H2Options,
  ) {}

  async opener(): Promise<OpenStream | null> {
    for (;;) {
      if (this.http1) return null;
      const session = this.withRoom();
      if (session) return this.reserve(session);
      await (this.growing ??= this.grow().finally(() => (this.growing = null)));
    }
  }

  /**
   * Counts a stream on `session` now, in the same step that found it room, so a burst of reads spreads
   * over connections instead of all finding room on the same one; the count ends with the stream, or
   * with `cancel` when the read is given up before it opens one.
   */
  private reserve(session: http2.ClientHttp2Session): OpenStream {
    this.open.set(session, this.open.get(session)! + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const count = this.open.get(session);
      if (count !== undefined) this.open.set(session, count - 1);
    };
    const open = (headers: http2.OutgoingHttpHeaders) => {
      try {
        const stream = session.request(headers);
        stream.once("close", release);
        return stream;
      } catch (error) {
        release();
        throw error;
      }
    };
    return Object.assign(open, { cancel: release });
  }

  /** Ends every connection at once (the pool's last client closed). */
  destroy(): void {
    for (const origin of this.origins) origin.destroy();
    this.open.clear();
  }

  private withRoom(): http2.ClientHttp2Session | null {
    let best: http2.ClientHttp2Session | null = null;
    for (const [session, count] of this.open) {
      if (!usable(session)) {
        this.open.delete(session);
        continue;
      }
      if (count < (session.remoteSettings.maxConcurrentStreams ?? Infinity) && (!best || count < this.open.get(best)!)) best = session;
    }
    return best;
  }

  /** Opens one more connection, and waits for the server's settings (its stream limit) on it. */
  private async grow(): Promise<void> {
    const origin = this.origins.find((o) => !o.connected) ?? this.origins[this.origins.push(new H2Origin(this.origin, this.options)) - 1]!;
    const session = await origin.connection();
    if (!session) {
      this.http1 = true;
      return;
    }
    if (!this.open.has(session)) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          session.destroy();
          reject(
            Object.assign(new Error(`no HTTP/2 settings from ${this.origin.host} in ${this.options.timeoutMs} ms`), {
              name: "TimeoutError",
            }),
          );
        }, this.options.timeoutMs);
        session.once("remoteSettings", () => {
          clearTimeout(timer);
          resolve();
        });
        session.once("close", () => {
          clearTimeout(timer);
          reject(Object.assign(new Error(`the connection to ${this.origin.host} closed`), { code: "ECONNRESET" }));
        });
      });
      this.open.set(session, 0);
    }
  }
}

const usable = (session: http2.ClientHttp2Session) => !session.closed && !session.destroyed;
