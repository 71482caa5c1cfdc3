import { isIP } from "node:net";
import { generate } from "selfsigned";

export type ServingCertificate = { cert: string; key: string };

/**
 * A self-signed serving certificate for the simulator, made at start-up. Clients trust it through
 * the kubeconfig's certificate-authority-data, as they would a cluster's own CA.
 */
export async function servingCertificate(hosts: string[] = ["localhost", "127.0.0.1", "::1"]): Promise<ServingCertificate> {
  const now = new Date();
  const result = await generate([{ name: "commonName", value: "fleetskew-simulator" }], {
    keyType: "ec",
    curve: "P-256",
    algorithm: "sha256",
    notBeforeDate: new Date(now.getTime() - 3_600_000),
    notAfterDate: new Date(now.getTime() + 365 * 86_400_000),
    extensions: [
      { name: "basicConstraints", cA: true, critical: true },
      { name: "keyUsage", digitalSignature: true, keyCertSign: true, keyEncipherment: true, critical: true },
      { name: "extKeyUsage", serverAuth: true },
      {
        name: "subjectAltName",
        altNames: [...new Set(hosts)].map((h) => (isIP(h) ? { type: 7 as const, ip: h } : { type: 2 as const, value: h })),
      },
    ],
  });
  return { cert: result.cert, key: result.private };
}
