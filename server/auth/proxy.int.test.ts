import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DELETE as signOutRoute, GET as whoami } from "@/app/api/v1/session/route";
import { CLIENT_IP_HEADER, markSocketPeerHeader } from "../http/request";
import { listAudit } from "../store/audit";
import { listUsers, updateUser } from "../store/users";
import { useMigratedDatabase } from "../testing/database";
import { startOpenShiftUsersApi, type OpenShiftUsersApi } from "../testing/openshiftUsers";
import { request } from "../testing/routes";

/**
 * OpenShift's sign-in through oauth-proxy: the identity headers believed from the configured proxy
 * address only, the groups read from the OpenShift API with the person's own token.
 */
useMigratedDatabase();
let openshift: OpenShiftUsersApi;

beforeAll(async () => {
  openshift = await startOpenShiftUsersApi();
  Object.assign(process.env, {
    FLEETSKEW_AUTH_PROXY: "openshift",
    FLEETSKEW_AUTH_PROXY_PEERS: "127.0.0.1,::1",
    FLEETSKEW_AUTH_PROXY_ROLES:
      "fleet-admins=admin,fleet-approvers=approver,emea-field=technician@clusterSet=edge-emea,emea-audit=viewer@clusterSet=edge-emea&platform=AWS",
    FLEETSKEW_OPENSHIFT_API_URL: openshift.url,
  });
  openshift.tokens.set("sha256~alice-1", { name: "alice", groups: ["fleet-approvers"] });
  openshift.tokens.set("sha256~bob-1", { name: "bob", groups: ["developers"] });
});
afterAll(() => openshift?.close());

/** A request as it reaches the console: from `peer` (the socket), with the proxy's headers. */
const proxied = (peer: string, user: string, token: string | null, init: { method?: string; extra?: Record<string, string> } = {}) =>
  request("/api/v1/session", {
    method: init.method,
    origin: null,
    headers: {
      [CLIENT_IP_HEADER]: peer,
      "x-forwarded-user": user,
      "x-forwarded-email": `${user}@cluster.local`,
      ...(token ? { "x-forwarded-access-token": token } : {}),
      ...init.extra,
    },
  });

describe("OpenShift sign-in through oauth-proxy", () => {
  it("believes nothing before the HTTP server vouches for the peer header", async () => {
    expect((await whoami(proxied("127.0.0.1", "alice", "sha256~alice-1"))).status).toBe(401);
    expect(openshift.requests()).toBe(0);
  });

  it("signs in the user the proxy forwards, with the role their OpenShift groups give, once per token", async () => {
    markSocketPeerHeader();
    const response = await whoami(proxied("127.0.0.1", "alice", "sha256~alice-1"));
    expect(response.status).toBe(200);
    expect((await response.json()).user).toMatchObject({ username: "alice", role: "approver", authSource: "openshift" });
    await whoami(proxied("::ffff:127.0.0.1", "alice", "sha256~alice-1"));
    expect(openshift.requests()).toBe(1);
    expect(await listAudit({ action: "session.login", actor: "alice" })).toMatchObject([
      { outcome: "success", summary: "signed in with OpenShift (oauth-proxy)", details: { method: "openshift", group: "fleet-approvers" } },
    ]);
  });

  it("leaves a bearer that is not a Fleetskew API token to the proxy that vouches for the person; from anyone else it is refused", async () => {
    const bearer = { authorization: "Bearer sha256~alice-1" };
    const behindProxy = await whoami(proxied("127.0.0.1", "alice", "sha256~alice-1", { extra: bearer }));
    expect(behindProxy.status).toBe(200);
    expect((await behindProxy.json()).user.username).toBe("alice");
    const direct = await whoami(request("/api/v1/session", { headers: { [CLIENT_IP_HEADER]: "192.0.2.1", ...bearer } }));
    expect(direct.status).toBe(401);
    expect((await direct.json()).error).toMatch(/takes a Fleetskew API token/);
  });

  it("ignores the headers from any other peer, whatever X-Forwarded-For says", async () => {
    const before = openshift.requests();
    for (const peer of ["10.128.2.7", "192.0.2.1", "unknown"]) {
      const response = await whoami(proxied(peer, "alice", "sha256~alice-1", { extra: { "x-forwarded-for": "127.0.0.1" } }));
      expect([peer, response.status]).toEqual([peer, 401]);
    }
    expect(openshift.requests()).toBe(before);
  });

  it("refuses a token that belongs to someone else, and a person in no mapped group", async () => {
    const stolen = await whoami(proxied("127.0.0.1", "alice", "sha256~bob-1"));
    expect([stolen.status, (await stolen.json()).error]).toEqual([403, "The proxy's token belongs to bob, not to alice; refused"]);
    const bob = await whoami(proxied("127.0.0.1", "bob", "sha256~bob-1"));
    expect(bob.status).toBe(403);
    expect((await bob.json()).error).toBe(
      "bob is not in any group that has a Fleetskew role (your groups: developers, system:authenticated, system:authenticated:oauth; OpenShift groups with a role: fleet-admins, fleet-approvers, emea-field, emea-audit). Ask an administrator to add you to one.",
    );
    expect((await listUsers()).map((u) => u.username)).not.toContain("bob");
    const missingToken = await whoami(proxied("127.0.0.1", "alice", null));
    expect((await missingToken.json()).error).toMatch(/--pass-access-token/);
  });

  it("gives the union of the grants of every mapped OpenShift group", async () => {
    openshift.tokens.set("sha256~dan-1", { name: "dan", groups: ["emea-field", "emea-audit", "developers"] });
    const response = await whoami(proxied("127.0.0.1", "dan", "sha256~dan-1"));
    expect(response.status).toBe(200);
    expect((await response.json()).user).toMatchObject({
      role: "technician",
      grants: [
        { role: "technician", scope: "clusterSet=edge-emea" },
        { role: "viewer", scope: "clusterSet=edge-emea&platform=AWS" },
      ],
    });
    expect((await listAudit({ action: "user.create", target: "dan" }))[0]!.details).toMatchObject({
      grants: [
        { role: "technician", scope: "clusterSet=edge-emea" },
        { role: "viewer", scope: "clusterSet=edge-emea&platform=AWS" },
      ],
    });
  });

  it("refuses an OpenShift name with an invisible character, showing it with its stable id", async () => {
    openshift.tokens.set("sha256~shy-1", { name: "al\u00adice", groups: ["fleet-approvers"] });
    const response = await whoami(proxied("127.0.0.1", "al\u00adice", "sha256~shy-1"));
    expect([response.status, (await response.json()).error]).toEqual([
      403,
      'Your name at OpenShift cannot be a Fleetskew username: "al\\u{AD}ice" contains an invisible or control character, so it could pass for someone else\'s. Ask your administrators to rename the account (its id: openshift:al\\u{AD}ice)',
    ]);
    expect((await listUsers()).map((u) => u.username)).not.toContain("al\u00adice");
  });

  it("follows the groups at the next OpenShift sign-in (a new token), and keeps a disabled account out", async () => {
    openshift.tokens.set("sha256~alice-2", { name: "alice", groups: ["fleet-admins"] });
    const admin = await whoami(proxied("127.0.0.1", "alice", "sha256~alice-2"));
    expect((await admin.json()).user.role).toBe("admin");
    const alice = (await listUsers()).find((u) => u.username === "alice")!;
    await updateUser(alice.id, { disabled: true }, { actor: "test" }, () => undefined);
    // Disabling ended the session; the same token signs in again, and is refused.
    for (const token of ["sha256~alice-2", "sha256~alice-3"]) {
      openshift.tokens.set(token, { name: "alice", groups: ["fleet-admins"] });
      const disabled = await whoami(proxied("127.0.0.1", "alice", token));
      expect([disabled.status, (await disabled.json()).error]).toEqual([
        403,
        "The Fleetskew account alice is disabled; ask an administrator",
      ]);
    }
  });

  it("signs out of Fleetskew and points at the proxy's own sign-out", async () => {
    openshift.tokens.set("sha256~carol-1", { name: "carol", groups: ["fleet-approvers"] });
    expect((await whoami(proxied("127.0.0.1", "carol", "sha256~carol-1"))).status).toBe(200);
    const out = await signOutRoute(proxied("127.0.0.1", "carol", "sha256~carol-1", { method: "DELETE" }));
    expect([out.status, await out.json()]).toEqual([200, { providerSignOut: "/oauth/sign_out" }]);
    expect(await listAudit({ action: "session.logout", actor: "carol" })).toHaveLength(1);
  });
});
