import { actorFor } from "../auth/actor";
import { randomBytes, randomUUID } from "node:crypto";
import net from "node:net";
import pg from "pg";
import { parse, stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as jobRoute } from "@/app/api/v1/registration-jobs/[id]/route";
import { POST as previewRoute } from "@/app/api/v1/registration-jobs/preview/route";
import { POST as createRoute } from "@/app/api/v1/registration-jobs/route";
import { POST as registerRoute } from "@/app/api/v1/clusters/route";
import { ensureInitialAccounts } from "../auth/bootstrap";
import { addUser } from "../auth/users";
import { Fleet } from "../simulator/cluster";
import { startSimulator, type SimulatorServer } from "../simulator/http";
import { kubeconfigFor } from "../simulator/kubeconfig";
import { generateFleet } from "../simulator/scenarios/generate";
import { testFleetSpecs } from "../simulator/testing";
import { sealSecret } from "../secrets/keyring";
import { listAudit } from "../store/audit";
import { JobSystem } from "../runtime/jobs";
import { insertRegistrationJob } from "../store/registrationJobs";
import { listUsers } from "../store/users";
import { UNREACHABLE_MESSAGE } from "./registration";
import { useMigratedDatabase } from "../testing/database";
import { params, request, signIn } from "../testing/routes";
import type { BulkContext, RegistrationJobProgress } from "./contract";
import { drainRegistrations, enqueueRegistrationItems, itemCredentialsContext, registrationItemJob } from "./bulkRunner";
import { credentialsOf } from "./registration";

process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
const db = useMigratedDatabase();
let sim: SimulatorServer;
let fleet: Fleet;
let kubeconfig: string;
let admin: string;
let tech: string;
let generated: string[];
let closedPort: number;

type Kubeconfig = {
  clusters: { name: string; cluster: Record<string, unknown> }[];
  users: { name: string; user: Record<string, unknown> }[];
  contexts: { name: string; context: { cluster: string; user: string } }[];
};

/** A port nothing listens on: an API URL that refuses connections. */
const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

beforeAll(async () => {
  fleet = new Fleet();
  // prod-east, prod-east-422 (its 4.22 projection) and legacy (a copy of prod-east): three API URLs of one
  // cluster, one ClusterVersion spec.clusterID; then generated clusters without fault modes.
  for (const spec of testFleetSpecs()) fleet.add(spec);
  const extra = generateFleet(12, 7)
    .slice(2)
    .filter((s) => !s.faults);
  for (const spec of extra) fleet.add(spec);
  generated = extra.map((s) => s.name);
  sim = await startSimulator(fleet);
  closedPort = await freePort();

  // Many contexts from the simulator, then some broken ones: a wrong token, an unreachable URL, an exec user.
  const config = parse(kubeconfigFor(fleet.list(), sim.url, sim.ca)) as Kubeconfig;
  const first = config.clusters.find((c) => c.name === generated[0])!;
  config.clusters.push({ name: "nowhere", cluster: { ...first.cluster, server: `https://127.0.0.1:${closedPort}` } });
  config.users.push({ name: "wrong", user: { token: "sha256~not-a-valid-token" } });
  const reader = fleet.list().find((c) => c.name === generated[1])!.spec.readOnlyToken;
  config.users.push({ name: "reader", user: { token: reader } });
  config.users.push({ name: "sso", user: { exec: { apiVersion: "client.authentication.k8s.io/v1", command: "oc-login" } } });
  config.contexts.push(
    { name: "Wrong Token", context: { cluster: generated[0]!, user: "wrong" } },
    { name: "admin@Nowhere", context: { cluster: "nowhere", user: `${generated[0]}-user` } },
    { name: "sso/prod-east", context: { cluster: "prod-east", user: "sso" } },
    { name: `reader@${generated[1]}`, context: { cluster: generated[1]!, user: "reader" } },
  );
  kubeconfig = stringify(config);

  await ensureInitialAccounts({ dataDir: "/nonexistent", adminPassword: "admin password here", demo: false });
  await addUser({ username: "tech", role: "technician", password: "technician password" }, actorFor((await listUsers())[0]!, null));
  admin = await signIn("admin", "admin password here");
  tech = await signIn("tech", "technician password");
});
afterAll(() => sim.close());

const post = (route: typeof previewRoute, path: string, body: unknown, cookie = admin) =>
  route(request(path, { method: "POST", cookie, body }));
const preview = (body: unknown, cookie = admin) => post(previewRoute, "/api/v1/registration-jobs/preview", body, cookie);
const create = (body: unknown, cookie = admin) => post(createRoute, "/api/v1/registration-jobs", body, cookie);
const progress = async (id: string): Promise<RegistrationJobProgress> =>
  (await (await jobRoute(request(`/api/v1/registration-jobs/${id}`, { cookie: admin }), params({ id }))).json()).job;

async function rowCount(table: string): Promise<number> {
  const client = new pg.Client({ connectionString: db().url });
  await client.connect();
  try {
    return (await client.query(`SELECT count(*)::int AS n FROM "${table}"`)).rows[0].n;
  } finally {
    await client.end();
  }
}

async function finished(id: string): Promise<RegistrationJobProgress> {
  // No background process runs here: this one works through the job's items, as one would.
  await drainRegistrations(3);
  await expect.poll(async () => (await progress(id)).finishedAt, { timeout: 30_000 }).not.toBeNull();
  return progress(id);
}

describe("bulk registration from a kubeconfig", () => {
  it("previews every context with its name, API URL, credential kind and whether it is registered", async () => {
    const single = await registerRoute(
      request("/api/v1/clusters", {
        method: "POST",
        cookie: admin,
        body: { name: "prod-east-422", source: { type: "kubeconfig", kubeconfig, context: "prod-east-422" } },
      }),
    );
    expect(single.status).toBe(201);

    const res = await preview({ kubeconfig });
    expect(res.status).toBe(200);
    const { contexts } = (await res.json()) as { contexts: BulkContext[] };
    expect(contexts).toHaveLength(3 + generated.length + 4);
    const byContext = new Map(contexts.map((c) => [c.context, c]));
    expect(byContext.get("prod-east")).toMatchObject({
      name: "prod-east",
      apiUrl: `${sim.url}/clusters/prod-east`,
      credentialKind: "token",
      accepted: true,
      reason: null,
      registered: null,
    });
    expect(byContext.get("prod-east-422")!.registered).toEqual({ cluster: "prod-east-422", by: "name" });
    expect(byContext.get("Wrong Token")).toMatchObject({ name: "wrong-token", accepted: true });
    expect(byContext.get("admin@Nowhere")).toMatchObject({ name: "admin-nowhere", apiUrl: `https://127.0.0.1:${closedPort}` });
    expect(byContext.get("sso/prod-east")).toMatchObject({
      name: "sso-prod-east",
      credentialKind: "exec",
      accepted: false,
      reason: expect.stringMatching(/gets its credentials from a program/),
    });
    expect(JSON.stringify(contexts)).not.toMatch(/prod-east-token|not-a-valid-token|BEGIN CERTIFICATE/);
  });

  it("refuses bad input with a 4xx and leaves nothing behind", async () => {
    const many = stringify({
      clusters: [{ name: "c", cluster: { server: "https://api.example.com:6443" } }],
      users: [{ name: "u", user: { token: "t" } }],
      contexts: Array.from({ length: 501 }, (_, i) => ({ name: `ctx-${i}`, context: { cluster: "c", user: "u" } })),
    });
    const aliases = `a: &a [x, x, x, x, x, x, x, x, x, x]\n${Array.from({ length: 60 }, (_, i) => `k${i}: *a`).join("\n")}\ncontexts: []\n`;
    const cases: [unknown, number, RegExp][] = [
      [{ kubeconfig: "clusters: [unclosed" }, 400, /not valid YAML/],
      [{ kubeconfig: "just a string" }, 400, /not a YAML mapping/],
      [{ kubeconfig: aliases }, 400, /not valid YAML.*alias/i],
      [{ kubeconfig: many }, 400, /501 contexts; at most 500/],
      [{ kubeconfig: "x".repeat(2 * 1024 * 1024 + 1) }, 400, /larger than 2 MiB/],
    ];
    for (const [body, status, message] of cases) {
      for (const res of [await preview(body), await create({ ...(body as object), contexts: [{ context: "ctx-0" }] })]) {
        expect([res.status, (await res.json()).error]).toEqual([status, expect.stringMatching(message)]);
      }
    }
    const tooLarge = await create("x".repeat(3 * 1024 * 1024));
    expect(tooLarge.status).toBe(413);

    const refused: [unknown, RegExp][] = [
      [
        { kubeconfig, contexts: [{ context: "prod-east" }, { context: "sso/prod-east" }] },
        /"sso\/prod-east" cannot be registered: .*program/,
      ],
      [{ kubeconfig, contexts: [{ context: "prod-east" }, { context: "missing" }] }, /no context named "missing"/],
      [{ kubeconfig, contexts: [{ context: "prod-east" }, { context: "prod-east" }] }, /chosen twice/],
      [{ kubeconfig, contexts: [{ context: "prod-east" }, { context: "legacy", name: "prod-east" }] }, /both be named prod-east/],
      [{ kubeconfig, contexts: [{ context: "prod-east", name: "Not Valid" }] }, /Name may use lower-case/],
      [{ kubeconfig, contexts: [] }, /at least one context/],
    ];
    for (const [body, message] of refused) {
      const res = await create(body);
      expect([res.status, (await res.json()).error]).toEqual([400, expect.stringMatching(message)]);
    }
    expect((await create({ kubeconfig, contexts: [{ context: "prod-east" }] }, tech)).status).toBe(403);
    expect((await preview({ kubeconfig }, tech)).status).toBe(403);
    expect(await rowCount("RegistrationJob")).toBe(0);
    expect(await rowCount("RegistrationJobItem")).toBe(0);
    expect(await listAudit({ action: "cluster.bulk-register" })).toEqual([]);
    const missing = randomUUID();
    expect((await jobRoute(request(`/api/v1/registration-jobs/${missing}`, { cookie: admin }), params({ id: missing }))).status).toBe(404);
    expect((await jobRoute(request("/api/v1/registration-jobs/nope", { cookie: admin }), params({ id: "nope" }))).status).toBe(404);
  });

  it("registers the chosen contexts in the background and reports what failed, and why, and duplicates", async () => {
    const { contexts } = (await (await preview({ kubeconfig })).json()) as { contexts: BulkContext[] };
    const chosen = contexts.filter((c) => c.accepted).map((c) => ({ context: c.context }));
    const res = await create({ kubeconfig, contexts: chosen, labels: "source=bulk" });
    expect(res.status).toBe(202);
    const { job } = (await res.json()) as { job: RegistrationJobProgress };
    expect(job.counts.total).toBe(chosen.length);
    expect(job.items.every((i) => ["pending", "testing", "registered", "duplicate", "failed"].includes(i.status))).toBe(true);

    const done = await finished(job.id);
    const item = (context: string) => done.items.find((i) => i.context === context)!;
    expect(item("Wrong Token")).toMatchObject({ status: "failed", reason: expect.stringMatching(/^Credentials refused: .*401/) });
    expect(item("admin@Nowhere")).toMatchObject({ status: "failed", reason: `Unreachable: ${UNREACHABLE_MESSAGE}` });
    expect(item("prod-east-422")).toMatchObject({
      status: "duplicate",
      clusterName: "prod-east-422",
      reason: expect.stringMatching(/already registered/),
    });
    // prod-east and legacy reach the cluster registered as prod-east-422: known by its ClusterVersion spec.clusterID.
    for (const context of ["prod-east", "legacy"])
      expect(item(context)).toMatchObject({
        status: "duplicate",
        clusterName: "prod-east-422",
        reason: expect.stringMatching(/same ClusterVersion spec\.clusterID/),
      });
    // Two contexts of one cluster in the same job, tested at once: it is registered once.
    const pair = [item(generated[1]!), item(`reader@${generated[1]}`)];
    expect(pair.map((i) => i.status).sort()).toEqual(["duplicate", "registered"]);
    for (const name of generated.filter((n) => n !== generated[1]))
      expect(item(name)).toMatchObject({ status: "registered", clusterName: name, openshiftVersion: expect.any(String) });
    expect(done.counts).toMatchObject({
      total: chosen.length,
      registered: generated.length,
      duplicate: 4,
      failed: 2,
      pending: 0,
      testing: 0,
    });

    // Registered clusters work like any other; no item keeps credentials; everything is audited.
    expect((await credentialsOf(generated[1]!)).server).toBe(`${sim.url}/clusters/${generated[1]}`);
    const client = new pg.Client({ connectionString: db().url });
    await client.connect();
    const kept = await client.query(`SELECT count(*)::int AS n FROM "RegistrationJobItem" WHERE "sealedCredentials" IS NOT NULL`);
    const labels = await client.query(`SELECT "labels", "openshiftClusterId" FROM "Cluster" WHERE "name" = $1`, [generated[1]]);
    await client.end();
    expect(kept.rows[0].n).toBe(0);
    expect(labels.rows[0]).toMatchObject({ labels: { source: "bulk" }, openshiftClusterId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(await listAudit({ action: "cluster.bulk-register" })).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ targetId: job.id, actor: "admin" }),
        expect.objectContaining({
          action: "cluster.bulk-register.finished",
          details: expect.objectContaining({ registered: generated.length }),
        }),
      ]),
    );
    const registered = (await listAudit({ action: "cluster.register", limit: 500 })).filter(
      (e) => (e.details as { job?: string }).job === job.id,
    );
    expect(registered).toHaveLength(generated.length);

    // Again: everything it registered is now a duplicate, nothing is registered twice.
    const again = (
      await (await create({ kubeconfig, contexts: generated.map((context) => ({ context, name: `${context}-again` })) })).json()
    ).job;
    const second = await finished(again.id);
    expect(second.counts).toMatchObject({ duplicate: generated.length, registered: 0 });
    expect(await rowCount("Cluster")).toBe(generated.length + 1);
  });

  it("continues a job whose process stopped: the item's lease runs out and another process takes it", async () => {
    const parsed = parse(kubeconfig) as Kubeconfig;
    const cluster = parsed.clusters.find((c) => c.name === "prod-east")!.cluster;
    const id = randomUUID();
    const credentials = {
      server: `${sim.url}/clusters/prod-east`,
      token: "prod-east-token",
      certificateAuthority: sim.ca,
      insecureSkipTlsVerify: false,
    };
    expect(cluster.server).toBe(credentials.server);
    await insertRegistrationJob(
      {
        id,
        createdBy: "admin",
        createdByRole: "admin",
        labels: {},
        items: [
          {
            id: randomUUID(),
            context: "prod-east",
            name: "east-again",
            apiUrl: credentials.server,
            sealedCredentials: await sealSecret(JSON.stringify(credentials), itemCredentialsContext(id, 0)),
          },
        ],
      },
      { actor: "admin", role: "admin" },
      // A short lease, so that the takeover happens within the test.
      (sql, itemIds) => enqueueRegistrationItems(sql, itemIds, { leaseMs: 1_000 }),
    );
    // A process takes the item while the cluster answers slowly, and dies in the middle of testing it.
    fleet.setFaults("prod-east", { latencyMs: 1_500 });
    const dying = new JobSystem(true, () => undefined);
    await dying.work([registrationItemJob]);
    await expect.poll(async () => (await progress(id)).items[0]?.status, { timeout: 10_000 }).toBe("testing");
    dying.abandon();
    const other = new JobSystem(true, () => undefined);
    try {
      // Nobody else takes it while its lease runs.
      await other.maintain();
      expect(await other.drain(registrationItemJob)).toBe(0);
      expect((await progress(id)).items[0]).toMatchObject({ status: "testing", attempts: 1 });
      await new Promise((r) => setTimeout(r, 1_500));
      // pg-boss's maintenance (every working process runs it) fails the expired attempt; the retry is the other process's.
      await other.maintain();
      expect(await other.drain(registrationItemJob)).toBe(1);
      const done = await progress(id);
      // prod-east is registered already (as prod-east-422): reported, with that name, not registered again.
      expect(done.items[0]).toMatchObject({ status: "duplicate", attempts: 2, clusterName: "prod-east-422" });
      expect(done.finishedAt).not.toBeNull();
      // The dead attempt's answer came while its successor held the item: it changed nothing.
      expect(await listAudit({ action: "cluster.register", limit: 500 })).not.toContainEqual(
        expect.objectContaining({ targetId: "east-again" }),
      );
    } finally {
      fleet.setFaults("prod-east", undefined);
      await other.stop();
    }
  });
});
