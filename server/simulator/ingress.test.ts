import { X509Certificate } from "node:crypto";
import type { AddressInfo } from "node:net";
import tls from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IngressAuthority } from "./ingress";

describe("the simulated clusters' ingress certificates", () => {
  let authority: IngressAuthority;
  let server: tls.Server;
  let port: number;

  beforeAll(async () => {
    authority = await IngressAuthority.create("s1.sim.fleetskew.test");
    server = tls.createServer({
      SNICallback: (name, done) => done(null, authority.contextFor(name) ?? undefined),
    });
    server.on("secureConnection", (socket) => socket.end("ok"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("are wildcards for the cluster's apps domain, issued and signed by the published CA", () => {
    const leaf = new X509Certificate(authority.certificateOf("edge-7"));
    const ca = new X509Certificate(authority.ca.cert);
    expect(leaf.subject).toBe("CN=*.apps.edge-7.s1.sim.fleetskew.test");
    expect(leaf.subjectAltName).toBe("DNS:*.apps.edge-7.s1.sim.fleetskew.test");
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(ca.ca).toBe(true);
    expect(ca.verify(ca.publicKey)).toBe(true);
    expect(ca.subject).toBe("CN=ingress-operator@s1.sim.fleetskew.test");
    expect(leaf.keyUsage).toEqual(["1.3.6.1.5.5.7.3.1"]);
    expect(leaf.checkHost("thanos-querier-openshift-monitoring.apps.edge-7.s1.sim.fleetskew.test")).toBeTruthy();
    expect(leaf.checkHost("thanos-querier-openshift-monitoring.apps.edge-8.s1.sim.fleetskew.test")).toBeUndefined();
    expect(Date.parse(leaf.validFrom)).toBeLessThan(Date.now());
    expect(Date.parse(leaf.validTo)).toBeGreaterThan(Date.now() + 300 * 86_400_000);
    // Two certificates of one cluster differ in their serials.
    expect(new X509Certificate(authority.certificateOf("edge-7")).serialNumber).not.toBe(leaf.serialNumber);
  });

  const handshake = (servername: string, ca: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = tls.connect({ host: "127.0.0.1", port, servername, ca }, () => {
        socket.once("data", (d) => resolve(`${d}`));
      });
      socket.once("error", reject);
    });

  it("pass a client's verification of a Route's host against the CA alone", async () => {
    await expect(handshake("console-openshift-console.apps.edge-7.s1.sim.fleetskew.test", authority.ca.cert)).resolves.toBe("ok");
    await expect(handshake("console-openshift-console.apps.edge-9.s1.sim.fleetskew.test", authority.ca.cert)).resolves.toBe("ok");
  });

  it("are not trusted by a client that does not hold the CA", async () => {
    const other = await IngressAuthority.create("s1.sim.fleetskew.test");
    await expect(handshake("console-openshift-console.apps.edge-7.s1.sim.fleetskew.test", other.ca.cert)).rejects.toThrow(/certificate/);
  });

  it("name only a cluster's ingress names", () => {
    expect(authority.clusterOf("a.apps.edge-7.s1.sim.fleetskew.test:443")).toBe("edge-7");
    expect(authority.contextFor("api.edge-7.s1.sim.fleetskew.test")).toBeNull();
    expect(authority.contextFor("a.apps.edge-7.elsewhere.test")).toBeNull();
  });
});
