import { randomBytes, webcrypto } from "node:crypto";
import tls from "node:tls";
import * as x509 from "@peculiar/x509";

/** The simulated fleet's base domain: each cluster's ingress domain is `apps.<cluster>.<this>` (RFC 2606 `.test`). */
export const SIM_INGRESS_DOMAIN = "sim.fleetskew.test";

const lifetime = () => {
  const now = Date.now();
  return { notBefore: new Date(now - 3_600_000), notAfter: new Date(now + 365 * 86_400_000) };
};

const EC_P256 = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
const crypto = webcrypto as unknown as Crypto;
const pem = (der: ArrayBuffer, label: string) => x509.PemConverter.encode(der, label);

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
    /** The CA's certificate (PEM), as the cluster publishes it. */
    readonly ca: { cert: string; name: string; signingKey: CryptoKey },
    /**
     * One key pair for every cluster's ingress certificate: only the certificates differ (their names),
     * so a cluster's first Route handshake signs one certificate instead of generating a key too.
     */
    private readonly leaf: { publicKey: CryptoKey; privateKeyPem: string },
  ) {}

  static async create(domain = SIM_INGRESS_DOMAIN): Promise<IngressAuthority> {
    const caKeys = (await crypto.subtle.generateKey(EC_P256, true, ["sign", "verify"])) as CryptoKeyPair;
    const name = `CN=ingress-operator@${domain}`;
    const ca = await x509.X509CertificateGenerator.createSelfSigned(
      {
        serialNumber: `01${randomBytes(8).toString("hex")}`,
        name,
        ...lifetime(),
        signingAlgorithm: EC_P256,
        keys: caKeys,
        extensions: [
          new x509.BasicConstraintsExtension(true, undefined, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.digitalSignature, true),
        ],
      },
      crypto,
    );
    const leafKeys = (await crypto.subtle.generateKey(EC_P256, true, ["sign", "verify"])) as CryptoKeyPair;
    return new IngressAuthority(
      domain,
      { cert: ca.toString("pem"), name, signingKey: caKeys.privateKey },
      { publicKey: leafKeys.publicKey, privateKeyPem: pem(await crypto.subtle.exportKey("pkcs8", leafKeys.privateKey), "PRIVATE KEY") },
    );
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
    const leaf = await x509.X509CertificateGenerator.create(
      {
        serialNumber: `01${randomBytes(8).toString("hex")}`,
        subject: `CN=${wildcard}`,
        issuer: this.ca.name,
        ...lifetime(),
        signingAlgorithm: EC_P256,
        publicKey: this.leaf.publicKey,
        signingKey: this.ca.signingKey,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
          new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
          new x509.SubjectAlternativeNameExtension([{ type: "dns", value: wildcard }]),
        ],
      },
      crypto,
    );
    return tls.createSecureContext({ cert: `${leaf.toString("pem")}\n${this.ca.cert}`, key: this.leaf.privateKeyPem });
  }
}
