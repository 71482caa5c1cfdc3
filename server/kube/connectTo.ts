/**
 * Where to connect for a host and port, when that is not where DNS points: curl's `--connect-to
 * HOST1:PORT1:HOST2:PORT2` (curl's manual, "--connect-to"). Fleetskew uses it for Routes only, whose
 * names (`*.apps.<cluster domain>`) a console outside the cluster's DNS often cannot resolve, though it
 * can reach the ingress load balancer by address. The TLS name and the Host header stay HOST1's.
 *
 * An empty HOST1 or PORT1 matches any; `*.example.com` matches every name below example.com. An empty
 * HOST2 or PORT2 keeps the original. The first matching entry wins.
 */
export type ConnectTo = { host: string; port: number | null; toHost: string | null; toPort: number | null };

const HOST = String.raw`(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9*._-]*)`;
const PORT = String.raw`(\d{0,5})`;
const ENTRY = new RegExp(`^${HOST}:${PORT}:${HOST}:${PORT}$`);

export class ConnectToError extends Error {
  override name = "ConnectToError";
}

const port = (text: string, entry: string): number | null => {
  if (text === "") return null;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new ConnectToError(`"${entry}": ${text} is not a port (1–65535)`);
  return n;
};

const unbracket = (host: string) => host.replace(/^\[(.*)\]$/, "$1");

/** Parses a comma- or space-separated list of HOST1:PORT1:HOST2:PORT2 entries; throws on anything else. */
export function parseConnectTo(text: string): ConnectTo[] {
  const entries = text.split(/[\s,]+/).filter(Boolean);
  if (entries.length > 100) throw new ConnectToError("at most 100 entries");
  return entries.map((entry) => {
    const m = ENTRY.exec(entry);
    if (!m) throw new ConnectToError(`"${entry.slice(0, 100)}" is not HOST1:PORT1:HOST2:PORT2`);
    const host = m[1]!.toLowerCase();
    if (host.includes("*") && !/^\*\.[a-z0-9.-]+$/.test(host))
      throw new ConnectToError(`"${entry}": a wildcard is only allowed as "*.domain"`);
    if (m[3]!.includes("*")) throw new ConnectToError(`"${entry}": the address to connect to cannot be a wildcard`);
    return { host: unbracket(host), port: port(m[2]!, entry), toHost: m[3] ? unbracket(m[3]) : null, toPort: port(m[4]!, entry) };
  });
}

const hostMatches = (pattern: string, host: string) =>
  pattern === "" || pattern === host || (pattern.startsWith("*.") && host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1);

/** Where a connection to `host`:`port` goes. */
export function connectTarget(entries: readonly ConnectTo[], host: string, port: number): { host: string; port: number } {
  const name = host.toLowerCase();
  const entry = entries.find((e) => hostMatches(e.host, name) && (e.port === null || e.port === port));
  return entry ? { host: entry.toHost ?? host, port: entry.toPort ?? port } : { host, port };
}

/** `host:port` for a URL, brackets around an IPv6 address. */
export const hostPort = (host: string, port: number) => `${host.includes(":") ? `[${host}]` : host}:${port}`;
