/**
 * How the host of a cluster's monitoring Route is resolved (server/kube/client.ts `routeGet`): over the
 * DNS protocol (node:dns Resolver, c-ares), not through the system's getaddrinfo. Node runs
 * getaddrinfo on its four libuv threads, which also do the console's file and compression work, and
 * a name the resolver cannot answer holds a thread for as long as the resolver waits: with a fleet
 * whose Routes this machine cannot resolve (a hub that does not resolve its spokes' ingress domains
 * is common), two hundred lookups at once took 40 s here and every sweep waited behind them.
 * c-ares asks the name servers from /etc/resolv.conf itself, without a thread; /etc/hosts, which it
 * does not read, is read here. A name that does not resolve is remembered for FAILURE_TTL_MS, so the
 * sweeps in between say why without asking again.
 */
import dns from "node:dns";
import { readFileSync, statSync } from "node:fs";
import net from "node:net";

export type ResolvedAddress = { address: string; family: 4 | 6 };

/** How long a name that did not resolve is not asked again. */
export const FAILURE_TTL_MS = 10 * 60_000;
/** Names remembered at most; the oldest go first. */
const MAX_REMEMBERED = 100_000;
const HOSTS_FILE = "/etc/hosts";
/** How often /etc/hosts is looked at again for changes. */
const HOSTS_CHECK_MS = 30_000;

let resolver = new dns.promises.Resolver({ timeout: 2_000, tries: 2 });
const failures = new Map<string, { until: number; since: number; code: string; message: string }>();

/** For tests: the name servers to ask, and a clean memory. */
export function useNameServers(servers: string[]): void {
  resolver = new dns.promises.Resolver({ timeout: 500, tries: 1 });
  resolver.setServers(servers);
  failures.clear();
}

/** /etc/hosts as `name → addresses` (the format of hosts(5): an address, then names, `#` comments). */
export function parseHostsFile(text: string): Map<string, ResolvedAddress[]> {
  const byName = new Map<string, ResolvedAddress[]>();
  for (const line of text.split("\n")) {
    const [address, ...names] = line.replace(/#.*/, "").trim().split(/\s+/);
    const family = net.isIP(address ?? "");
    if (!address || family === 0) continue;
    for (const name of names) {
      const key = name.toLowerCase();
      byName.set(key, [...(byName.get(key) ?? []), { address, family: family as 4 | 6 }]);
    }
  }
  return byName;
}

let hosts: { checkedAt: number; mtimeMs: number; byName: Map<string, ResolvedAddress[]> } = {
  checkedAt: 0,
  mtimeMs: -1,
  byName: new Map(),
};
function hostsFile(now: number): Map<string, ResolvedAddress[]> {
  if (now - hosts.checkedAt < HOSTS_CHECK_MS) return hosts.byName;
  try {
    const { mtimeMs } = statSync(HOSTS_FILE);
    hosts =
      mtimeMs === hosts.mtimeMs
        ? { ...hosts, checkedAt: now }
        : { checkedAt: now, mtimeMs, byName: parseHostsFile(readFileSync(HOSTS_FILE, "utf8")) };
  } catch {
    hosts = { checkedAt: now, mtimeMs: -1, byName: new Map() };
  }
  return hosts.byName;
}

const clock = (ms: number) => new Date(ms).toISOString().slice(11, 16);

/**
 * The addresses `host` resolves to, from /etc/hosts or DNS (A and AAAA at once). A failure is an
 * error with the resolver's code (ENOTFOUND for a name DNS does not know, ETIMEOUT, ECONNREFUSED, …)
 * and is remembered; asked again within FAILURE_TTL_MS, the same error says since when.
 */
export async function resolveRouteHost(host: string, now = Date.now()): Promise<ResolvedAddress[]> {
  const name = host.toLowerCase();
  const listed = hostsFile(now).get(name);
  if (listed) return listed;
  const known = failures.get(name);
  if (known && known.until > now)
    throw Object.assign(
      new Error(`${known.message} (remembered since ${clock(known.since)} UTC; asked again after ${clock(known.until)} UTC)`),
      {
        code: known.code,
      },
    );
  const [v4, v6] = await Promise.allSettled([resolver.resolve4(name), resolver.resolve6(name)]);
  const addresses: ResolvedAddress[] = [
    ...(v4.status === "fulfilled" ? v4.value.map((address) => ({ address, family: 4 as const })) : []),
    ...(v6.status === "fulfilled" ? v6.value.map((address) => ({ address, family: 6 as const })) : []),
  ];
  if (addresses.length) {
    failures.delete(name);
    return addresses;
  }
  const reasons = [v4, v6].flatMap((r) => (r.status === "rejected" ? [r.reason as NodeJS.ErrnoException] : []));
  // A name with no A and no AAAA record (ENODATA both ways) resolves to nothing, as getaddrinfo says ENOTFOUND.
  const definite = reasons.find((e) => e.code !== "ENODATA") ?? reasons[0];
  const code = !definite || definite.code === "ENODATA" ? "ENOTFOUND" : (definite.code ?? "ENOTFOUND");
  const message =
    code === "ENOTFOUND" ? `${host} does not resolve (DNS knows no address for it)` : `${host} could not be resolved (${code} from DNS)`;
  if (failures.size >= MAX_REMEMBERED) failures.delete(failures.keys().next().value!);
  failures.set(name, { since: now, until: now + FAILURE_TTL_MS, code, message });
  throw Object.assign(new Error(message), { code });
}
