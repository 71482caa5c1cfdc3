import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as ackApproveRoute } from "@/app/api/v1/acknowledgements/[id]/approve/route";
import { POST as ackRejectRoute } from "@/app/api/v1/acknowledgements/[id]/reject/route";
import { GET as ackListRoute, POST as ackRequestRoute } from "@/app/api/v1/acknowledgements/route";
import { GET as auditRoute } from "@/app/api/v1/audit/route";
import { POST as approveRoute } from "@/app/api/v1/rollouts/[id]/approve/route";
import { GET as clustersRoute } from "@/app/api/v1/rollouts/[id]/clusters/route";
import { POST as pauseRoute } from "@/app/api/v1/rollouts/[id]/pause/route";
import { GET as getRoute } from "@/app/api/v1/rollouts/[id]/route";
import { GET as listRoute, POST as createRoute } from "@/app/api/v1/rollouts/route";
import { hashPassword } from "../auth/password";
import { Collector } from "../collector/collector";
import { CLUSTER_SET_LABEL } from "../domain/hubEligibility";
import type { Grant } from "../domain/grants";
import type { Role } from "../domain/accounts";
import type { Fleet } from "../simulator/cluster";
import type { SimulatorServer } from "../simulator/http";
import { startTestSimulator } from "../simulator/testing";
import { getPool } from "../store/db";
import { makeAllDue } from "../store/sweeps";
import { createUser } from "../store/users";
import { useMigratedDatabase } from "../testing/database";
import { registerSimulatedClusters, testCollectorOptions } from "../testing/fleet";
import { params, request, signIn as signInAs } from "../testing/routes";

/**
 * Four eyes within scope, through the route handlers on real Postgres and the simulated fleet, with
 * two teams: EMEA holds prod-east, APAC holds prod-east-422 and legacy. A plan over the whole fleet
 * covers only the planner's clusters and names none of the others; approving takes an approver over
 * every cluster; an acknowledgement is decided only by an approver over its cluster; the audit log
 * of a scoped reader holds nothing about the other team's clusters.
 */
process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();

let fleet: Fleet;
let sim: SimulatorServer;
const EMEA = ["prod-east"];
const APAC = ["prod-east-422", "legacy"];
const signIn = (username: string) => signInAs(username, `${username} password for tests`);
const cookies: Record<string, string> = {};

const USERS: [string, Role, Grant[]][] = [
  ["ada", "admin", []],
  ["emma", "technician", [{ role: "technician", scope: "clusterSet=edge-emea" }]],
  // Reads the whole fleet, plans for EMEA only.
  [
    "tina",
    "technician",
    [
      { role: "viewer", scope: "" },
      { role: "technician", scope: "clusterSet=edge-emea" },
    ],
  ],
  ["eve", "approver", [{ role: "approver", scope: "clusterSet=edge-emea" }]],
  ["paul", "approver", [{ role: "approver", scope: "clusterSet=edge-apac" }]],
  ["pat", "technician", [{ role: "technician", scope: "clusterSet=edge-apac" }]],
  // Reads APAC, approves EMEA: sees APAC's requests but may not decide them.
  [
    "mixed",
    "approver",
    [
      { role: "viewer", scope: "clusterSet=edge-apac" },
      { role: "approver", scope: "clusterSet=edge-emea" },
    ],
  ],
];

beforeAll(async () => {
  ({ fleet, sim } = await startTestSimulator());
  await registerSimulatedClusters(sim, fleet.list());
  for (const [name, set] of [...EMEA.map((n) => [n, "edge-emea"]), ...APAC.map((n) => [n, "edge-apac"])])
    await getPool().query(`UPDATE "Cluster" SET "labels" = "labels" || jsonb_build_object($2::text, $3::text) WHERE "name" = $1`, [
      name,
      CLUSTER_SET_LABEL,
      set,
    ]);
  for (const [username, role, grants] of USERS) {
    await createUser(
      { username, role, passwordHash: await hashPassword(`${username} password for tests`), ...(role === "admin" ? {} : { grants }) },
      { actor: null },
    );
    cookies[username] = await signIn(username);
  }
  await makeAllDue();
  await new Collector(testCollectorOptions("test")).runOnce();
}, 120_000);
afterAll(() => sim.close());

const plan = (cookie: string, body: Record<string, unknown>) =>
  createRoute(request("/api/v1/rollouts", { method: "POST", cookie, body: { kind: "upgrade", target: "4.19.11", ...body } }));
const approve = (id: string, cookie: string, digest: string) =>
  approveRoute(
    request(`/api/v1/rollouts/${id}/approve`, { method: "POST", cookie, body: {}, headers: { "if-match": `"${digest}"` } }),
    params({ id }),
  );

describe("rollouts within scope", () => {
  it("a whole-fleet plan by an EMEA technician covers EMEA only and names no APAC cluster, even in the dry run", async () => {
    for (const [planner, outside] of [
      ["emma", 0], // who cannot read APAC is not told it exists
      ["tina", APAC.length], // who reads it is told how many were left out, never which
    ] as const) {
      const dry = await plan(cookies[planner]!, { selection: { query: "" }, dryRun: true });
      expect(dry.status).toBe(200);
      const text = await dry.text();
      for (const name of APAC) expect(text).not.toContain(name);
      const answer = JSON.parse(text);
      expect(answer.outsideScope).toBe(outside);
      expect(answer.selected).toBe(EMEA.length);
      expect(answer.waves.flatMap((w: { clusters: string[] }) => w.clusters)).toEqual(EMEA);
    }

    // Named clusters outside the planner's scope are counted, not named; nothing in scope is a 403 naming the scope.
    const named = await plan(cookies.emma!, { selection: { clusters: ["prod-east", "legacy"] }, dryRun: true });
    expect(named.status).toBe(200);
    expect((await named.json()).outsideScope).toBe(1);
    const none = await plan(cookies.emma!, { selection: { clusters: APAC }, dryRun: true });
    expect(none.status).toBe(403);
    expect((await none.json()).error).toContain("None of the selected clusters is in your scope: technician@clusterSet=edge-emea");
  });

  it("only an approver over every cluster approves; the planner never; a reader of the other team does not see it", async () => {
    const saved = await plan(cookies.emma!, { selection: { query: "" } });
    expect(saved.status).toBe(201);
    const rollout = await saved.json();
    const clusters = await (
      await clustersRoute(request(`/api/v1/rollouts/${rollout.id}/clusters`, { cookie: cookies.ada! }), params({ id: rollout.id }))
    ).json();
    expect(clusters.clusters.map((c: { clusterName: string }) => c.clusterName)).toEqual(EMEA);

    // The APAC approver: the rollout touches none of their clusters, so it is not theirs to see.
    expect((await getRoute(request(`/api/v1/rollouts/${rollout.id}`, { cookie: cookies.paul! }), params({ id: rollout.id }))).status).toBe(
      404,
    );
    const paulList = await (await listRoute(request("/api/v1/rollouts", { cookie: cookies.paul! }))).json();
    expect(paulList.rollouts.map((r: { id: string }) => r.id)).not.toContain(rollout.id);
    expect((await approve(rollout.id, cookies.paul!, rollout.digest)).status).toBe(404);

    // Made visible to the APAC approver by one of his clusters joining it: still refused, naming how many are outside.
    await getPool().query(
      `INSERT INTO "RolloutCluster" ("rolloutId", "clusterName", "wave", "state") VALUES ($1::uuid, 'legacy', 0, 'pending')`,
      [rollout.id],
    );
    const paulView = await (
      await getRoute(request(`/api/v1/rollouts/${rollout.id}`, { cookie: cookies.paul! }), params({ id: rollout.id }))
    ).json();
    expect(paulView.yours.mayApprove).toBe(false);
    const paulPage = await (
      await clustersRoute(request(`/api/v1/rollouts/${rollout.id}/clusters`, { cookie: cookies.paul! }), params({ id: rollout.id }))
    ).json();
    expect(paulPage.clusters.map((c: { clusterName: string }) => c.clusterName)).toEqual(["legacy"]);
    const refused = await approve(rollout.id, cookies.paul!, paulView.digest);
    expect(refused.status).toBe(403);
    expect((await refused.json()).error).toBe(
      "1 of the rollout's 2 clusters is outside your approver scope (approver@clusterSet=edge-apac)",
    );
    // EMEA's approver is short of legacy now too; taken out again, EMEA's approver may approve.
    expect((await approve(rollout.id, cookies.eve!, paulView.digest)).status).toBe(403);
    await getPool().query(`DELETE FROM "RolloutCluster" WHERE "rolloutId" = $1::uuid AND "clusterName" = 'legacy'`, [rollout.id]);

    const mine = await approve(rollout.id, cookies.emma!, rollout.digest);
    expect(mine.status).toBe(403);
    const eveView = await (
      await getRoute(request(`/api/v1/rollouts/${rollout.id}`, { cookie: cookies.eve! }), params({ id: rollout.id }))
    ).json();
    expect(eveView.yours).toMatchObject({ mayApprove: true, mayAbort: true, outsideScope: 0 });
    const approved = await approve(rollout.id, cookies.eve!, eveView.digest);
    expect(approved.status).toBe(200);

    // The brake: the APAC technician holds none of its clusters; EMEA's technician does.
    const pause = (cookie: string) =>
      pauseRoute(
        request(`/api/v1/rollouts/${rollout.id}/pause`, { method: "POST", cookie, body: { comment: "hold" } }),
        params({ id: rollout.id }),
      );
    expect((await pause(cookies.pat!)).status).toBe(404);
    expect((await pause(cookies.emma!)).status).toBe(200);

    const events = await getPool().query(`SELECT "details" FROM "AuditEvent" WHERE "action" = 'rollout.approve' AND "targetId" = $1`, [
      String(rollout.number),
    ]);
    expect(events.rows[0].details.grant).toBe("approver@clusterSet=edge-emea");
  });
});

describe("acknowledgements within scope", () => {
  it("is requested by a technician over the cluster and decided only by an approver over it", async () => {
    const body = {
      cluster: "prod-east-422",
      mode: "RHCOSVersion",
      rhcosVersion: "9.6.20250701-0",
      evidence: "Worker MachineSets moved to ami-0a1b2c3d (RHCOS 9.6.20250701-0) on 2026-11-18, change CHG-1234.",
    };
    const ask = (cookie: string) => ackRequestRoute(request("/api/v1/acknowledgements", { method: "POST", cookie, body }));
    const outside = await ask(cookies.emma!);
    expect(outside.status).toBe(404);
    const created = await ask(cookies.pat!);
    expect(created.status).toBe(201);
    const { id } = await created.json();

    // What the page's buttons follow: the reader of APAC who approves EMEA is told it is not theirs to decide.
    const listed = async (cookie: string) =>
      (
        (await (await ackListRoute(request("/api/v1/acknowledgements", { cookie }))).json()).acknowledgements as {
          id: string;
          mayDecide: boolean;
        }[]
      ).find((a) => a.id === id);
    expect((await listed(cookies.mixed!))?.mayDecide).toBe(false);
    expect((await listed(cookies.paul!))?.mayDecide).toBe(true);

    const decide = (route: typeof ackApproveRoute, cookie: string) =>
      route(request(`/api/v1/acknowledgements/${id}/x`, { method: "POST", cookie, body: { comment: "not this week" } }), params({ id }));
    expect((await decide(ackApproveRoute, cookies.eve!)).status).toBe(404);
    const mixed = await decide(ackApproveRoute, cookies.mixed!);
    expect(mixed.status).toBe(403);
    expect((await mixed.json()).error).toBe("prod-east-422 is outside your scope: approver@clusterSet=edge-emea");
    expect((await decide(ackRejectRoute, cookies.paul!)).status).toBe(200);

    const eveList = await (await ackListRoute(request("/api/v1/acknowledgements", { cookie: cookies.eve! }))).json();
    expect(eveList.acknowledgements).toEqual([]);
    const paulList = await (await ackListRoute(request("/api/v1/acknowledgements", { cookie: cookies.paul! }))).json();
    expect(paulList.acknowledgements.map((a: { id: string }) => a.id)).toContain(id);
  });
});

describe("the audit log within scope", () => {
  it("holds, for a scoped reader, their own events and their clusters', nothing about the other team's", async () => {
    const read = async (cookie: string, query = "") => {
      const response = await auditRoute(request(`/api/v1/audit${query}`, { cookie }));
      expect(response.status).toBe(200);
      return response;
    };
    const eve = (await (await read(cookies.eve!, "?limit=500")).json()).events as {
      actor: string;
      targetId: string | null;
      summary: string;
    }[];
    expect(eve.length).toBeGreaterThan(0);
    for (const e of eve) for (const name of APAC) expect(`${e.targetId} ${e.summary}`).not.toContain(name);
    expect(eve.some((e) => e.actor === "eve")).toBe(true);
    const csv = await (await read(cookies.eve!, "?format=csv")).text();
    for (const name of APAC) expect(csv).not.toContain(name);

    const all = (await (await read(cookies.ada!, "?limit=500")).json()).events as { targetId: string | null }[];
    expect(all.some((e) => e.targetId === "prod-east-422")).toBe(true);
  });
});
