import { createHash } from "node:crypto";
import { secureContextFor } from "./clientConfig";
import type { ClusterCredentials } from "./credentials";
import { H2Pool } from "./h2";

/*
 * The connections to an ACM hub's cluster-proxy user-server, shared by the clients of every cluster
 * behind it. Each of those clusters is `<proxy>/<cluster>/…` on the same server, trusted through the
 * same CA: a connection per cluster, opened and closed with each sweep, cost a TLS connection and a
 * resumed handshake on both ends for every cluster swept (two, with the alerts' query on an HTTP/1.1
 * connection of its own), where the hub's clusters are swept one after another from one collector.
 * Shared, a hub's sweeps are streams of one HTTP/2 connection (the user-server is Go's http.Server,
 * which speaks HTTP/2: cluster-proxy pkg/utils/http_server.go), or of a few when one holds as many
 * streams as the server allows (./h2.ts H2Pool), each carrying its own cluster's bearer token, so
 * nothing about a connection is any one cluster's. Idle for IDLE_MS (./h2.ts) a connection closes,
 * and the next sweep opens another: a collector holds connections per hub it is sweeping, not per
 * cluster. A user-server reached over HTTP/1.1 alone (a Route that does not pass HTTP/2 on) is asked
 * through each cluster's own connections, as before: one shared pool of HTTP/1.1 connections, one
 * request at a time each, would let a few clusters that hang hold every connection.
 */

export type ProxyConnections = {
  h2: H2Pool;
  /** The client that held these is closed: the connections close when no client holds them. */
  release: () => void;
};

const shared = new Map<string, { h2: H2Pool; clients: number }>();

/** What a connection's identity is made of: the server's origin, what the client trusts and presents, and the connect deadline. */
function keyOf(c: ClusterCredentials, origin: string, timeoutMs: number): string {
  return createHash("sha256")
    .update(
      [
        origin,
        c.certificateAuthority ?? "",
        c.clientCertificateData ?? "",
        c.clientKeyData ?? "",
        String(c.insecureSkipTlsVerify),
        String(timeoutMs),
      ].join("\0"),
    )
    .digest("base64");
}

/** The shared connections to the cluster-proxy `credentials.server` is behind; release them when the client closes. */
export function proxyConnections(credentials: ClusterCredentials, timeoutMs: number): ProxyConnections {
  const origin = new URL(credentials.server);
  const key = keyOf(credentials, origin.origin, timeoutMs);
  let entry = shared.get(key);
  if (!entry) {
    const rejectUnauthorized = !credentials.insecureSkipTlsVerify;
    // What the connection needs of the credentials, and nothing of one cluster's (its token).
    const trust: ClusterCredentials = {
      server: origin.origin,
      certificateAuthority: credentials.certificateAuthority,
      clientCertificateData: credentials.clientCertificateData,
      clientKeyData: credentials.clientKeyData,
      insecureSkipTlsVerify: credentials.insecureSkipTlsVerify,
    };
    const context = () => secureContextFor(trust);
    entry = {
      h2: new H2Pool(new URL(origin.origin), { secureContext: context, rejectUnauthorized, timeoutMs }),
      clients: 0,
    };
    shared.set(key, entry);
  }
  entry.clients++;
  const held = entry;
  let released = false;
  return {
    h2: held.h2,
    release: () => {
      if (released) return;
      released = true;
      if (--held.clients > 0) return;
      shared.delete(key);
      held.h2.destroy();
    },
  };
}

/** How many hub proxies' connections are held now (for tests). */
export const sharedProxyCount = () => shared.size;
