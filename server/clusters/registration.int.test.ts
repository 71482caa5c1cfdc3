import { actorFor } from "../auth/actor";
import { randomBytes } from "node:crypto";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { DELETE as deleteClusterRoute, GET as getClusterRoute, PATCH as patchClusterRoute } from "@/app/api/v1/clusters/[name]/route";
import { POST as testRoute } from "@/app/api/v1/clusters/[name]/test/route";
import { GET as listRoute, POST as registerRoute } from "@/app/api/v1/clusters/route";
import { POST as connectionTestRoute } from "@/app/api/v1/connection-tests/route";
import { POST as contextsRoute } from "@/app/api/v1/kubeconfig-contexts/route";
import { ensureInitialAccounts } from "../auth/bootstrap";
import { addUser } from "../auth/users";
import type { SimulatorServer } from "../simulator/http";
import { kubeconfigFor } from "../simulator/kubeconfig";
import { startTestSimulator } from "../simulator/testing";
import { servingCertificate } from "../simulator/tls";
import { listAudit } from "../store/audit";
import { listUsers } from "../store/users";
import { useMigratedDatabase } from "../testing/database";
import { params as routeParams, request, signIn } from "../testing/routes";
import { credentialsOf, UNREACHABLE_MESSAGE } from "./registration";

process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
const db = useMigratedDatabase();
let sim: SimulatorServer;
let kubeconfig: string;
let admin: string;
let tech: string;

const params = (name: string) => routeParams({ name });

beforeAll(async () => {
  const started = await startTestSimulator();
  sim = started.sim;
  kubeconfig = kubeconfigFor(started.fleet.list(), sim.url, sim.ca);
  await ensureInitialAccounts({ dataDir: "/nonexistent", adminPassword: "admin password here", demo: false });
  await addUser({ username: "tech", role: "technician", password: "technician password" }, actorFor((await listUsers())[0]!, null));
  admin = await signIn("admin", "admin password here");
  tech = await signIn("tech", "technician password");
});
afterAll(() => sim.close());

describe("registering clusters", () => {
  it("lists a kubeconfig's contexts without secrets", async () => {
    const res = await contextsRoute(request("/api/v1/kubeconfig-contexts", { method: "POST", cookie: admin, body: { kubeconfig } }));
    const body = await res.json();
    expect(body.contexts.map((c: { name: string }) => c.name)).toEqual(["prod-east", "prod-east-422", "legacy"]);
    expect(JSON.stringify(body)).not.toContain("prod-east-token");
  });

  it("tests unsaved credentials and reports version and served kinds", async () => {
    const res = await connectionTestRoute(
      request("/api/v1/connection-tests", {
        method: "POST",
        cookie: admin,
        body: { source: { type: "kubeconfig", kubeconfig, context: "legacy" } },
      }),
    );
    const { report } = await res.json();
    expect(report).toMatchObject({ reachable: true, authenticated: true, openshiftVersion: "4.19.10", platform: "AWS" });
    expect(report.forbidden).toHaveLength(1);
  });

  it("registers from a kubeconfig, encrypts the credentials and never returns them", async () => {
    const res = await registerRoute(
      request("/api/v1/clusters", {
        method: "POST",
        cookie: admin,
        body: {
          name: "prod-east",
          displayName: "Production East",
          labels: { env: "prod" },
          source: { type: "kubeconfig", kubeconfig, context: "prod-east" },
        },
      }),
    );
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(body.cluster).toMatchObject({
      name: "prod-east",
      displayName: "Production East",
      platform: "AWS",
      lastContactStatus: "ok",
      labels: { env: "prod" },
    });
    expect(body.report.openshiftVersion).toBe("4.19.10");
    const listed = await (await listRoute(request("/api/v1/clusters", { cookie: tech }))).json();
    expect(listed.clusters.map((c: { name: string }) => c.name)).toEqual(["prod-east"]);
    expect(JSON.stringify(listed)).not.toMatch(/prod-east-token|BEGIN CERTIFICATE/);

    const client = new pg.Client({ connectionString: db().url });
    await client.connect();
    const { rows } = await client.query(`SELECT "encryptedCredentials" FROM "Cluster" WHERE name = 'prod-east'`);
    await client.end();
    expect(Buffer.from(rows[0].encryptedCredentials).toString("latin1")).not.toContain("prod-east-token");
    expect((await credentialsOf("prod-east")).token).toBe("prod-east-token");
    expect((await listAudit({ action: "cluster.register" }))[0]).toMatchObject({
      actor: "admin",
      targetId: "prod-east",
      details: { tls: "verified", source: "kubeconfig" },
    });
  });

  it("tells a closed port, a plain-HTTP service, Postgres and a web server that is not Kubernetes apart in no way but its log", async () => {
    const plainHttp = http.createServer((_req, res) => res.end("hello"));
    const notKubernetes = https.createServer(await servingCertificate(), (_req, res) =>
      res.writeHead(404).end("<html>nothing here</html>"),
    );
    await Promise.all([plainHttp, notKubernetes].map((s) => new Promise<void>((r) => s.listen(0, "127.0.0.1", r))));
    const port = (s: http.Server) => (s.address() as AddressInfo).port;
    const targets = {
      closed: "https://127.0.0.1:1",
      "plain HTTP": `https://127.0.0.1:${port(plainHttp)}`,
      postgres: "https://127.0.0.1:5432",
      "not Kubernetes": `https://127.0.0.1:${port(notKubernetes)}`,
    };
    const warnings: string[] = [];
    const warn = vi.spyOn(console, "warn").mockImplementation((line: string) => void warnings.push(line));
    try {
      const answers: string[] = [];
      for (const apiUrl of Object.values(targets)) {
        const res = await connectionTestRoute(
          request("/api/v1/connection-tests", {
            method: "POST",
            cookie: admin,
            body: { source: { type: "token", apiUrl, token: "t", insecureSkipTlsVerify: true } },
          }),
        );
        answers.push(`${res.status} ${JSON.stringify((await res.json()).report)}`);
      }
      expect(new Set(answers).size).toBe(1);
      expect(JSON.parse(answers[0]!.slice(4))).toMatchObject({ reachable: false, problem: UNREACHABLE_MESSAGE });
      // The cause is in the server's log, per address.
      expect(warnings).toHaveLength(4);
      expect(warnings[0]).toMatch(
        /^fleetskew: connection test: no Kubernetes API server answered at https:\/\/127\.0\.0\.1:1: .*ECONNREFUSED/,
      );
    } finally {
      warn.mockRestore();
      plainHttp.close();
      notKubernetes.close();
    }
  });

  it("registers from an API URL and token, and still registers a cluster it cannot reach now", async () => {
    const res = await registerRoute(
      request("/api/v1/clusters", {
        method: "POST",
        cookie: admin,
        body: { name: "far-away", source: { type: "token", apiUrl: "https://127.0.0.1:1", token: "t", insecureSkipTlsVerify: true } },
      }),
    );
    expect(res.status).toBe(201);
    const { cluster } = await res.json();
    expect(cluster).toMatchObject({ lastContactStatus: "unreachable", displayName: "far-away" });
    expect(cluster.lastContactError).toBe(UNREACHABLE_MESSAGE);
    expect((await listAudit({ action: "cluster.register" }))[0]!.details).toMatchObject({ tls: "verification skipped" });
  });

  it("refuses bad input with a message, a duplicate with 409, and non-admins with 403", async () => {
    const post = (body: unknown, cookie = admin) => registerRoute(request("/api/v1/clusters", { method: "POST", cookie, body }));
    const exec =
      "apiVersion: v1\nclusters: [{name: c, cluster: {server: 'https://x:6443'}}]\nusers: [{name: u, user: {exec: {command: oc}}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\n";
    const cases: [unknown, number, RegExp][] = [
      [{ name: "Bad Name", source: { type: "kubeconfig", kubeconfig, context: "prod-east" } }, 400, /^Name may use lower-case/],
      [
        { name: "x", source: { type: "kubeconfig", kubeconfig: "clusters: [unclosed", context: "a" } },
        400,
        /^the kubeconfig is not valid YAML/,
      ],
      [{ name: "x", source: { type: "kubeconfig", kubeconfig: exec, context: "x" } }, 400, /gets its credentials from a program/],
      [{ name: "x", source: { type: "kubeconfig", kubeconfig, context: "missing" } }, 400, /no context named "missing"/],
      [{ name: "x", source: { type: "token", apiUrl: "http://api:6443", token: "t" } }, 400, /must use https/],
      [{ name: "x", source: { type: "token", apiUrl: "https://api:6443", token: "t", caBundle: "nope" } }, 400, /not a PEM certificate/],
      [{ name: "prod-east", source: { type: "kubeconfig", kubeconfig, context: "prod-east" } }, 409, /already registered/],
    ];
    const answers: [number, string][] = [];
    for (const [body] of cases) {
      const res = await post(body);
      answers.push([res.status, (await res.json()).error]);
    }
    expect(answers).toEqual(cases.map(([, status, message]) => [status, expect.stringMatching(message)]));
    expect((await post({ name: "y", source: { type: "kubeconfig", kubeconfig, context: "prod-east" } }, tech)).status).toBe(403);
    const listed = await (await listRoute(request("/api/v1/clusters", { cookie: admin }))).json();
    expect(listed.clusters.map((c: { name: string }) => c.name)).toEqual(["far-away", "prod-east"]);
  });

  it("changes a cluster's display name and labels, and answers with the cluster, never its credentials", async () => {
    const res = await patchClusterRoute(
      request("/api/v1/clusters/prod-east", {
        method: "PATCH",
        cookie: admin,
        body: { displayName: "Production east", labels: "env=prod, site=east" },
      }),
      params("prod-east"),
    );
    expect(res.status).toBe(200);
    const { cluster } = await res.json();
    expect(cluster).toMatchObject({ name: "prod-east", displayName: "Production east", labels: { env: "prod", site: "east" } });
    expect(JSON.stringify(cluster)).not.toContain("token");
    // Labels not sent stay as they are; a change of nothing is refused.
    const renamed = await patchClusterRoute(
      request("/api/v1/clusters/prod-east", { method: "PATCH", cookie: admin, body: { displayName: "Prod east" } }),
      params("prod-east"),
    );
    expect((await renamed.json()).cluster).toMatchObject({ displayName: "Prod east", labels: { env: "prod", site: "east" } });
    const nothing = await patchClusterRoute(
      request("/api/v1/clusters/prod-east", { method: "PATCH", cookie: admin, body: {} }),
      params("prod-east"),
    );
    expect(nothing.status).toBe(400);
  });

  it("tests a registered cluster and removes one", async () => {
    const res = await testRoute(request("/api/v1/clusters/prod-east/test", { method: "POST", cookie: admin }), params("prod-east"));
    expect((await res.json()).report.kubernetesVersion).toBe("v1.32.7");
    expect(
      (await deleteClusterRoute(request("/api/v1/clusters/far-away", { method: "DELETE", cookie: admin }), params("far-away"))).status,
    ).toBe(204);
    expect((await getClusterRoute(request("/api/v1/clusters/far-away", { cookie: admin }), params("far-away"))).status).toBe(404);
    expect((await listAudit({ action: "cluster.remove" }))[0]).toMatchObject({ targetId: "far-away", actor: "admin" });
  });
});
