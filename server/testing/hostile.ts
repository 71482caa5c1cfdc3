import http2 from "node:http2";
import https from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { servingCertificate } from "../simulator/tls";

/** One request a hostile server received: what and where, and the body it carried. */
export type Received = { method: string; path: string; body: string; authorization: string | undefined };

export type HostileServer = {
  url: string;
  ca: string;
  received: Received[];
  /** Bytes the server managed to write before the client hung up (streams that never end count here). */
  written: () => number;
  close: () => Promise<void>;
};

/**
 * A cluster or hub API server that misbehaves on purpose, over HTTPS on a free loopback port:
 * `handle` answers each request (after its body arrived) however the test wants.
 */
export async function startHostileServer(
  handle: (req: IncomingMessage, res: ServerResponse, received: Received, count: (bytes: number) => void) => void,
  tls?: { cert: string; key: string },
  options: { http2?: boolean } = {},
): Promise<HostileServer> {
  const cert = tls ?? (await servingCertificate(["127.0.0.1", "localhost"]));
  const received: Received[] = [];
  const sockets = new Set<Duplex>();
  let written = 0;
  // Over HTTP/2 only (as an API server a client offers h2 to answers), through its compatibility API.
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      const r: Received = { method: req.method ?? "", path: req.url ?? "", body, authorization: req.headers.authorization };
      received.push(r);
      handle(req, res, r, (bytes) => (written += bytes));
    });
  };
  const server = options.http2
    ? http2.createSecureServer({ cert: cert.cert, key: cert.key }, onRequest as never)
    : https.createServer({ cert: cert.cert, key: cert.key }, onRequest);
  server.on("connection", (s: Duplex) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `https://127.0.0.1:${port}`,
    ca: cert.cert,
    received,
    written: () => written,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        sockets.forEach((s) => s.destroy());
      }),
  };
}

/** Writes `chunk` again and again while the client keeps reading; stops when it hangs up. */
export function streamForever(res: ServerResponse, chunk: Buffer, count: (bytes: number) => void): void {
  const more = () => {
    while (!res.destroyed && !res.writableEnded) {
      count(chunk.length);
      if (!res.write(chunk)) return void res.once("drain", more);
    }
  };
  res.on("close", () => res.removeAllListeners("drain"));
  res.on("error", () => undefined);
  more();
}

export const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
