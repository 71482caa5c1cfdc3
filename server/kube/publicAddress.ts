/**
 * Where a cluster may send Fleetskew's connection with its bearer token: not back to the console's
 * own host or its network's link-local services. A cluster's monitoring Route names a host the
 * cluster chose; a hostile cluster may name one that resolves to 127.0.0.1 (the console itself, its
 * database's port, a sidecar), to 169.254.169.254 (a cloud's metadata service, which hands out the
 * console's own credentials) or to 0.0.0.0. The name is checked before the request
 * (server/kube/alertsReader.ts refuses addresses and `localhost`); what it resolves to is checked
 * here, at connect, on the addresses the socket will use, so a name that resolves differently the
 * second time (DNS rebinding) gains nothing.
 *
 * An operator's FLEETSKEW_CONNECT_TO mapping is the operator's choice and is not checked: it is how a
 * console outside the clusters' DNS reaches their ingress, and how the simulator's Routes are reached
 * on 127.0.0.1 (docs/security.md).
 */
import type dns from "node:dns";
import net from "node:net";
import { resolveRouteHost } from "./routeResolver";

/** The error code of a refused address, for the caller to tell it from a network failure. */
export const REFUSED_ADDRESS = "ERR_FLEETSKEW_REFUSED_ADDRESS";

const refused = new net.BlockList();
refused.addSubnet("127.0.0.0", 8, "ipv4"); // loopback (RFC 1122)
refused.addSubnet("169.254.0.0", 16, "ipv4"); // link-local (RFC 3927), cloud metadata services
refused.addSubnet("0.0.0.0", 8, "ipv4"); // "this network", 0.0.0.0 unspecified (RFC 1122)
refused.addAddress("::1", "ipv6"); // loopback (RFC 4291)
refused.addAddress("::", "ipv6"); // unspecified
refused.addSubnet("fe80::", 10, "ipv6"); // link-local
refused.addSubnet("::ffff:127.0.0.0", 104, "ipv6"); // the same, IPv4-mapped
refused.addSubnet("::ffff:169.254.0.0", 112, "ipv6");
refused.addSubnet("::ffff:0.0.0.0", 104, "ipv6");

/** What kind of address Fleetskew does not connect to a Route at, or null when it may. */
export function refusedAddressKind(address: string): string | null {
  const family = net.isIP(address);
  if (family === 0) return "not an address";
  if (!refused.check(address, family === 4 ? "ipv4" : "ipv6")) return null;
  if (/^(127\.|::1$|::ffff:127\.)/i.test(address)) return "loopback";
  if (/^(169\.254\.|fe[89ab][0-9a-f]:|::ffff:169\.254\.)/i.test(address)) return "link-local";
  return "unspecified";
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for an agent (net.connect's option): the Route's host resolved without Node's thread pool
 * (./routeResolver.ts), then a refusal when any address the name resolves to is loopback, link-local
 * or unspecified. Called with `all` (Node's happy eyeballs) or without; answers in the same shape.
 */
export function publicOnlyLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  const wanted = options.family === 4 || options.family === 6 ? options.family : null;
  resolveRouteHost(hostname).then(
    (found) => answer(null, wanted ? found.filter((a) => a.family === wanted) : found),
    (error: NodeJS.ErrnoException) => answer(error, []),
  );
  function answer(error: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]): void {
    if (error) return callback(error, []);
    const bad = addresses.find((a) => refusedAddressKind(a.address) !== null);
    if (bad) {
      const failure: NodeJS.ErrnoException = new Error(
        `${hostname} resolves to ${bad.address}, a ${refusedAddressKind(bad.address)} address, where Fleetskew sends no cluster's token`,
      );
      failure.code = REFUSED_ADDRESS;
      return callback(failure, []);
    }
    if (!addresses.length) return callback(Object.assign(new Error(`${hostname} resolves to no address`), { code: "ENOTFOUND" }), []);
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  }
}
