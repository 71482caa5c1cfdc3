import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, readConfig } from "./env";

describe("readConfig", () => {
  it("has working defaults with nothing configured", () => {
    const c = readConfig({});
    expect(c).toMatchObject({ databaseUrl: undefined, port: 3000, host: "127.0.0.1", sessionTtlHours: 12, allowedOrigins: [] });
    expect(c.dataDir).toBe(path.resolve(".fleetskew"));
  });

  it("treats empty variables as unset", () => {
    expect(readConfig({ DATABASE_URL: "", PORT: "" }).databaseUrl).toBeUndefined();
  });

  it("names the variable at fault", () => {
    expect(() => readConfig({ DATABASE_URL: "mysql://localhost/db" })).toThrow(ConfigError);
    expect(() => readConfig({ DATABASE_URL: "not a url" })).toThrow(/^DATABASE_URL must look like postgresql:\/\//);
    expect(() => readConfig({ PORT: "eighty" })).toThrow(/^PORT must be a number/);
    expect(() => readConfig({ PORT: "70000" })).toThrow(/^PORT must be between 1 and 65535/);
    expect(() => readConfig({ FLEETSKEW_ADMIN_PASSWORD: "short" })).toThrow(/^FLEETSKEW_ADMIN_PASSWORD must be at least 12/);
  });

  it("reads a list of extra trusted origins", () => {
    expect(readConfig({ FLEETSKEW_ALLOWED_ORIGINS: "https://a.example/, https://b.example" }).allowedOrigins).toEqual([
      "https://a.example",
      "https://b.example",
    ]);
  });
});

describe("cluster client settings", () => {
  it("default to a 10 s timeout, 2 retries and 1,000 watched clusters, and are bounded", () => {
    expect(readConfig({}).kube).toEqual({ timeoutMs: 10_000, retries: 2, connectTo: [], watchClusters: 1_000 });
    expect(readConfig({ FLEETSKEW_KUBE_TIMEOUT_MS: "2500", FLEETSKEW_KUBE_RETRIES: "0", FLEETSKEW_KUBE_WATCH_CLUSTERS: "0" }).kube).toEqual(
      {
        timeoutMs: 2500,
        retries: 0,
        connectTo: [],
        watchClusters: 0,
      },
    );
    expect(() => readConfig({ FLEETSKEW_KUBE_WATCH_CLUSTERS: "60000" })).toThrow(/^FLEETSKEW_KUBE_WATCH_CLUSTERS must be at most 50000/);
    expect(() => readConfig({ FLEETSKEW_KUBE_RETRIES: "50" })).toThrow(/^FLEETSKEW_KUBE_RETRIES must be at most 10/);
    expect(readConfig({ FLEETSKEW_CONNECT_TO: "*.apps.c1.example.com:443:10.0.0.5:" }).kube.connectTo).toEqual([
      { host: "*.apps.c1.example.com", port: 443, toHost: "10.0.0.5", toPort: null },
    ]);
    expect(() => readConfig({ FLEETSKEW_CONNECT_TO: "apps.example.com" })).toThrow(
      /^FLEETSKEW_CONNECT_TO "apps.example.com" is not HOST1:PORT1:HOST2:PORT2/,
    );
  });
});

describe("FLEETSKEW_MIGRATE", () => {
  it("migrates at start unless turned off, and refuses other values", () => {
    expect(readConfig({}).migrate).toBe(true);
    expect(readConfig({ FLEETSKEW_MIGRATE: "1" }).migrate).toBe(true);
    expect(readConfig({ FLEETSKEW_MIGRATE: "0" }).migrate).toBe(false);
    expect(readConfig({ FLEETSKEW_MIGRATE: "false" }).migrate).toBe(false);
    expect(() => readConfig({ FLEETSKEW_MIGRATE: "no" })).toThrow(/^FLEETSKEW_MIGRATE must be 1 or 0/);
  });
});

describe("ACM hubs", () => {
  it("lists every hub in full every 5 minutes unless told otherwise, and refuses nonsense", () => {
    expect(readConfig({}).hubResyncMs).toBe(300_000);
    expect(readConfig({ FLEETSKEW_HUB_RESYNC_SECONDS: "30" }).hubResyncMs).toBe(30_000);
    expect(() => readConfig({ FLEETSKEW_HUB_RESYNC_SECONDS: "1" })).toThrow(/^FLEETSKEW_HUB_RESYNC_SECONDS must be at least 5/);
    expect(readConfig({}).demoHub).toBe(false);
    expect(readConfig({ FLEETSKEW_DEMO_HUB: "1" }).demoHub).toBe(true);
    expect(() => readConfig({ FLEETSKEW_DEMO_HUB: "yes" })).toThrow(/^FLEETSKEW_DEMO_HUB must be 1 or 0/);
  });
});

describe("FLEETSKEW_WEB_SWEEPS", () => {
  it("sweeps in the web process unless turned off, and refuses other values", () => {
    expect(readConfig({}).webSweeps).toBe(true);
    expect(readConfig({ FLEETSKEW_WEB_SWEEPS: "0" }).webSweeps).toBe(false);
    expect(readConfig({ FLEETSKEW_WEB_SWEEPS: "true" }).webSweeps).toBe(true);
    expect(() => readConfig({ FLEETSKEW_WEB_SWEEPS: "off" })).toThrow(/^FLEETSKEW_WEB_SWEEPS must be 1 or 0/);
  });
});

describe("single sign-on settings", () => {
  const oidc = {
    FLEETSKEW_OIDC_ISSUER: "https://sso.example.com/realms/ops",
    FLEETSKEW_OIDC_CLIENT_ID: "fleetskew",
    FLEETSKEW_OIDC_ROLES: "fleet-admins=admin, fleet-approvers=approver",
    FLEETSKEW_PUBLIC_URL: "https://fleetskew.example.com",
  };

  it("reads an OpenID provider with its defaults and the redirect URI under the public URL", () => {
    expect(readConfig(oidc).oidc).toEqual({
      issuer: "https://sso.example.com/realms/ops",
      clientId: "fleetskew",
      clientSecret: undefined,
      scopes: "openid profile email",
      groupsClaim: "groups",
      roles: [
        { group: "fleet-admins", role: "admin", scope: "" },
        { group: "fleet-approvers", role: "approver", scope: "" },
      ],
      name: "sso.example.com",
      redirectUri: "https://fleetskew.example.com/api/v1/session/oidc/callback",
    });
    expect(readConfig({}).oidc).toBeNull();
  });

  it("accepts an http:// issuer only on loopback, and names what is missing or wrong", () => {
    expect(readConfig({ ...oidc, FLEETSKEW_OIDC_ISSUER: "http://127.0.0.1:9000" }).oidc?.issuer).toBe("http://127.0.0.1:9000");
    expect(() => readConfig({ ...oidc, FLEETSKEW_OIDC_ISSUER: "http://sso.example.com" })).toThrow(
      /^FLEETSKEW_OIDC_ISSUER must use https:\/\/ \(http:\/\/ is accepted only on loopback/,
    );
    expect(() => readConfig({ ...oidc, FLEETSKEW_OIDC_CLIENT_ID: "" })).toThrow(/^FLEETSKEW_OIDC_CLIENT_ID must be set/);
    expect(() => readConfig({ ...oidc, FLEETSKEW_PUBLIC_URL: "" })).toThrow(/^FLEETSKEW_PUBLIC_URL must be set with FLEETSKEW_OIDC_ISSUER/);
    expect(() => readConfig({ ...oidc, FLEETSKEW_OIDC_ROLES: "fleet-admins=root" })).toThrow(
      /^FLEETSKEW_OIDC_ROLES gives group fleet-admins the role "root"; roles are viewer, technician, approver, admin/,
    );
    expect(() => readConfig({ ...oidc, FLEETSKEW_OIDC_ROLES: "fleet-admins" })).toThrow(/is not group=role/);
    expect(() => readConfig({ ...oidc, FLEETSKEW_OIDC_SCOPES: "profile" })).toThrow(/must include "openid"/);
  });

  it("reads oauth-proxy's trusted peers as the deploy overlay sets them", () => {
    const proxy = readConfig({
      FLEETSKEW_AUTH_PROXY: "openshift",
      FLEETSKEW_AUTH_PROXY_PEERS: "127.0.0.1,::1",
      FLEETSKEW_AUTH_PROXY_ROLES: "fleet-admins=admin",
      KUBERNETES_SERVICE_HOST: "172.30.0.1",
      KUBERNETES_SERVICE_PORT: "443",
    }).authProxy;
    expect(proxy).toEqual({
      kind: "openshift",
      peers: ["127.0.0.1", "::1"],
      roles: [{ group: "fleet-admins", role: "admin", scope: "" }],
      apiUrl: "https://172.30.0.1:443",
      apiCaFile: "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt",
    });
    expect(() => readConfig({ FLEETSKEW_AUTH_PROXY: "openshift", FLEETSKEW_AUTH_PROXY_PEERS: "proxy.local" })).toThrow(
      /^FLEETSKEW_AUTH_PROXY_PEERS has "proxy.local", which is not an IP address/,
    );
    expect(() => readConfig({ FLEETSKEW_AUTH_PROXY: "nginx" })).toThrow(/^FLEETSKEW_AUTH_PROXY must be "openshift"/);
  });
});
