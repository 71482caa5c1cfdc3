import { generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import tls from "node:tls";

/** The simulated fleet's base domain: each cluster's ingress domain is `apps.<cluster>.<this>` (RFC 2606 `.test`). */
export const SIM_INGRESS_DOMAIN = "sim.fleetskew.test";

/** A DER element: tag, definite length (X.690 §8.1.3), contents. */
function der(tag: number, ...contents: Uint8Array[]): Buffer {
  const body = Buffer.concat(contents);
  const n = body.length;
  const length = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return Buffer.concat([Buffer.from([tag, ...length]), body]);
}
const SEQUENCE = 0x30;
const hex = (h: string) => Buffer.from(h, "hex");
/** UTCTime (RFC 5280 §4.1.2.5.1: dates before 2050), `YYMMDDHHMMSSZ`. */
const utcTime = (d: Date) => der(0x17, Buffer.from(`${d.toISOString().slice(2, 19).replace(/[-T:]/g, "")}Z`));
/** A Name with one common name (RFC 5280 §4.1.2.4), as a UTF8String. */
const commonName = (cn: string) => der(SEQUENCE, der(0x31, der(SEQUENCE, hex("0603550403"), der(0x0c, Buffer.from(cn)))));
/** AlgorithmIdentifier ecdsa-with-SHA256 (RFC 5758 §3.2: parameters absent). */
const ECDSA_SHA256 = der(SEQUENCE, hex("06082a8648ce3d040302"));
/** The CA's extensions: basicConstraints CA:true (critical), keyUsage digitalSignature+keyCertSign (critical). */
const CA_EXTENSIONS = [hex("300f0603551d130101ff040530030101ff" + "300e0603551d0f0101ff040403020284")];
/** The leaf's fixed extensions: basicConstraints CA:false (critical), keyUsage digitalSignature+keyEncipherment (critical), extKeyUsage serverAuth. */
const LEAF_EXTENSIONS = hex(
  "300c0603551d130101ff04023000" + "300e0603551d0f0101ff0404030205a0" + "30130603551d25040c300a06082b06010505070301",
);

/** TBSCertificate, version 3 (RFC 5280 §4.1), with a random positive serial. */
function tbsCertificate(issuer: Buffer, validity: Buffer, subject: Buffer, publicKeyInfo: Buffer, extensions: Buffer[]): Buffer {
  const version3 = hex("a003020102");
  const serial = der(0x02, hex("01"), randomBytes(8));
  return der(SEQUENCE, version3, serial, ECDSA_SHA256, issuer, validity, subject, publicKeyInfo, der(0xa3, der(SEQUENCE, ...extensions)));
}

/** The certificate (PEM) of `tbs` signed by `key`: ECDSA signatures are DER Ecdsa-Sig-Values, as X.509 carries them (RFC 5758 §3.2). */
function signed(tbs: Buffer, key: KeyObject): string {
  const certificate = der(SEQUENCE, tbs, ECDSA_SHA256, der(0x03, hex("00"), sign("sha256", tbs, key)));
  return `-----BEGIN CERTIFICATE-----\n${certificate
    .toString("base64")
    .match(/.{1,64}/g)!
    .join("\n")}\n-----END CERTIFICATE-----\n`;
}

/**
 * The clusters' default ingress certificates, as OpenShift's ingress operator makes them: one CA
 * (published in openshift-config-managed/default-ingress-cert, not the API server's CA) signs a
 * wildcard `*.apps.<cluster>.<domain>` certificate per cluster. Certificates are made on the first
 * TLS handshake for a cluster's name (SNI) and kept for the most recent clusters.
 *
 * The certificates are encoded here from fixed parts, a leaf's name and serial spliced in, and signed
 * by OpenSSL: the first sweep of a large simulated fleet makes one per cluster, and a general ASN.1
 * encoder in JavaScript was a quarter of the simulator's work in that sweep.
 */
export class IngressAuthority {
  private readonly contexts = new Map<string, tls.SecureContext>();

  private constructor(
    readonly domain: string,
    /** The CA's certificate (PEM), as the cluster publishes it. */
    readonly ca: { cert: string; subject: Buffer; signingKey: KeyObject },
    /**
     * One key pair for every cluster's ingress certificate: only the certificates differ (their names),
     * so a cluster's first Route handshake signs one certificate instead of generating a key too.
     */
    private readonly leaf: { publicKeyInfo: Buffer; privateKeyPem: string; validity: Buffer },
  ) {}

  static async create(domain = SIM_INGRESS_DOMAIN): Promise<IngressAuthority> {
    const now = Date.now();
    const validity = der(SEQUENCE, utcTime(new Date(now - 3_600_000)), utcTime(new Date(now + 365 * 86_400_000)));
    const caKeys = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const subject = commonName(`ingress-operator@${domain}`);
    const ca = signed(
      tbsCertificate(subject, validity, subject, caKeys.publicKey.export({ type: "spki", format: "der" }), CA_EXTENSIONS),
      caKeys.privateKey,
    );
    const leafKeys = generateKeyPairSync("ec", { namedCurve: "P-256" });
    return new IngressAuthority(
      domain,
      { cert: ca, subject, signingKey: caKeys.privateKey },
      {
        publicKeyInfo: leafKeys.publicKey.export({ type: "spki", format: "der" }),
        privateKeyPem: leafKeys.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
        validity,
      },
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
  contextFor(servername: string): tls.SecureContext | null {
    const cluster = this.clusterOf(servername);
    if (!cluster) return null;
    let context = this.contexts.get(cluster);
    if (!context) {
      context = tls.createSecureContext({ cert: `${this.certificateOf(cluster)}${this.ca.cert}`, key: this.leaf.privateKeyPem });
      if (this.contexts.size >= 1000) this.contexts.delete(this.contexts.keys().next().value!);
      this.contexts.set(cluster, context);
    }
    return context;
  }

  /** The cluster's wildcard ingress certificate (PEM), signed by the CA. */
  certificateOf(cluster: string): string {
    const wildcard = `*.apps.${cluster}.${this.domain}`;
    const subjectAltName = der(SEQUENCE, hex("0603551d11"), der(0x04, der(SEQUENCE, der(0x82, Buffer.from(wildcard)))));
    const { subject, signingKey } = this.ca;
    const { validity, publicKeyInfo } = this.leaf;
    return signed(tbsCertificate(subject, validity, commonName(wildcard), publicKeyInfo, [LEAF_EXTENSIONS, subjectAltName]), signingKey);
  }
}
