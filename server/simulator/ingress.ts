import tls from "node:tls";
import { generate } from "selfsigned";

/** The simulated fleet's base domain: each cluster's ingress domain is `apps.<cluster>.<this>` (RFC 2606 `.test`). */
export const SIM_INGRESS_DOMAIN = "sim.fleetskew.test";

const lifetime = () => {
  const now = Date.now();
  return { notBeforeDate: new Date(now - 3_600_000), notAfterDate: new Date(now + 365 * 86_400_000) };
};

/**
 * The clusters' default ingress certificates, as OpenShift's ingress operator makes them: one CA
 * (published in openshift-config-managed/default-ingress-cert, not the API server's CA) signs a
 * wildcard `*.apps.<cluster>.<domain>` certificate per cluster. Certificates are made on the first
 * TLS handshake for a cluster's name (SNI) and kept for the most recent clusters.
 */
export class IngressAuthority {
  private readonly contexts = new Map<string, Promise<tls.SecureContext>>();

  private constructor(
    readonly domain: string,
    readonly ca: { cert: string; key: string },
  ) {}

  static async create(domain = SIM_INGRESS_DOMAIN): Promise<IngressAuthority> {
    const ca = await generate([{ name: "commonName", value: `ingress-operator@${domain}` }], {
      keyType: "ec",
      curve: "P-256",
      algorithm: "sha256",
      ...lifetime(),
      extensions: [
        { name: "basicConstraints", cA: true, critical: true },
        { name: "keyUsage", keyCertSign: true, digitalSignature: true, critical: true },
      ],
    });
    return new IngressAuthority(domain, { cert: ca.cert, key: ca.private });
  }

  /** The cluster whose ingress serves `host` (`<anything>.apps.<cluster>.<domain>`), or null. */
  clusterOf(host: string): string | null {
    const name = host.toLowerCase().replace(/:\d+$/, "");
    const suffix = `.${this.domain}`;
    if (!name.endsWith(suffix)) return null;
    const m = /\.apps\.([a-z0-9]([-a-z0-9]*[a-z0-9])?)$/.exec(name.slice(0, -suffix.length));
    return m ? m[1]! : null;
  }

  /** The TLS context for a handshake naming `servername`, or null when it is not a cluster's ingress name. */
  contextFor(servername: string): Promise<tls.SecureContext> | null {
    const cluster = this.clusterOf(servername);
    if (!cluster) return null;
    let context = this.contexts.get(cluster);
    if (!context) {
      context = this.issue(cluster);
      if (this.contexts.size >= 1000) this.contexts.delete(this.contexts.keys().next().value!);
      this.contexts.set(cluster, context);
    }
    return context;
  }

  private async issue(cluster: string): Promise<tls.SecureContext> {
    const wildcard = `*.apps.${cluster}.${this.domain}`;
    const leaf = await generate([{ name: "commonName", value: wildcard }], {
      keyType: "ec",
      curve: "P-256",
      algorithm: "sha256",
      ...lifetime(),
      ca: this.ca,
      extensions: [
        { name: "basicConstraints", cA: false, critical: true },
        { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
        { name: "extKeyUsage", serverAuth: true },
        { name: "subjectAltName", altNames: [{ type: 2 as const, value: wildcard }] },
      ],
    });
    return tls.createSecureContext({ cert: `${leaf.cert}\n${this.ca.cert}`, key: leaf.private });
  }
}
