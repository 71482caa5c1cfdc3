/**
 * The route handlers under app/api served over real HTTP on a loopback port, for tests whose client
 * is another process (the command line): the requests and answers cross a socket as they do in
 * front of `npm start`, without a Next.js build. Like the start script's server, it sets the client
 * IP header from the socket and drops one a client sent.
 */
import { readdirSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { CLIENT_IP_HEADER, markSocketPeerHeader } from "../http/request";

const ROOT = path.resolve(__dirname, "../..");
type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;
type Route = { file: string; pattern: RegExp; keys: string[] };

/** app/api/v1/clusters/[name]/route.ts → ^/api/v1/clusters/([^/]+)$ */
function routes(dir = path.join(ROOT, "app/api")): Route[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry): Route[] => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return routes(full);
    if (entry.name !== "route.ts") return [];
    const segments = path.relative(path.join(ROOT, "app"), path.dirname(full)).split(path.sep);
    const keys: string[] = [];
    const source = segments
      .map((s) => {
        const key = /^\[(\w+)\]$/.exec(s)?.[1];
        if (!key) return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        keys.push(key);
        return "([^/]+)";
      })
      .join("/");
    return [{ file: full, pattern: new RegExp(`^/${source}$`), keys }];
  });
}

export async function serveRoutes(): Promise<{ url: string; close: () => Promise<void> }> {
  markSocketPeerHeader();
  // Fixed paths before dynamic ones, so /api/v1/rollouts/{id}/clusters is not read as another {id}.
  const table = routes().sort((a, b) => a.keys.length - b.keys.length);
  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "127.0.0.1"}`);
      const route = table.find((r) => r.pattern.test(url.pathname));
      const handler = route ? ((await import(route.file)) as Record<string, Handler | undefined>)[req.method ?? "GET"] : undefined;
      if (!route || !handler) {
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "Not found" }));
        return;
      }
      const match = route.pattern.exec(url.pathname)!;
      const params = Object.fromEntries(route.keys.map((k, i) => [k, decodeURIComponent(match[i + 1]!)]));
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers))
        if (value !== undefined && name !== CLIENT_IP_HEADER) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
      headers.set(CLIENT_IP_HEADER, req.socket.remoteAddress ?? "unknown");
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      const response = await handler(new Request(url, { method: req.method, headers, body }), { params: Promise.resolve(params) });
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    } catch (error) {
      res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: String(error) }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
