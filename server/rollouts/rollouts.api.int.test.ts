import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as abortRoute } from "@/app/api/v1/rollouts/[id]/abort/route";
import { POST as approveRoute } from "@/app/api/v1/rollouts/[id]/approve/route";
import { GET as clustersRoute, POST as decideRoute } from "@/app/api/v1/rollouts/[id]/clusters/route";
import { POST as releaseRoute } from "@/app/api/v1/rollouts/[id]/release/route";
import { GET as clusterRolloutsRoute } from "@/app/api/v1/clusters/[name]/rollouts/route";
import { POST as pauseRoute } from "@/app/api/v1/rollouts/[id]/pause/route";
import { POST as resumeRoute } from "@/app/api/v1/rollouts/[id]/resume/route";
import { GET as getRoute } from "@/app/api/v1/rollouts/[id]/route";
import { GET as listRoute, POST as createRoute } from "@/app/api/v1/rollouts/route";
import { GET as fleetListRoute } from "@/app/api/v1/clusters/route";
import { hashPassword } from "../auth/password";
import { Collector } from "../collector/collector";
import type { Fleet } from "../simulator/cluster";
import type { SimulatorServer } from "../simulator/http";
import { startTestSimulator } from "../simulator/testing";
import { Reconciler, scaledClock } from "../simulator/reconciler";
import { followAcknowledgements } from "../acknowledgements/acknowledgements";
import { advanceRollouts } from "./runner";
import { listAudit } from "../store/audit";
import { getPool } from "../store/db";
import { makeAllDue } from "../store/sweeps";
import { createUser } from "../store/users";
import { useMigratedDatabase } from "../testing/database";
import { registerSimulatedClusters, testCollectorOptions } from "../testing/fleet";
import { params, request, signIn as signInAs } from "../testing/routes";

/**
 * Rollout plans through their route handlers, against real Postgres and the simulated fleet swept by
 * the real collector: what a browser or a script gets back, and what is (not) saved.
 */
process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();

let fleet: Fleet;
let sim: SimulatorServer;
let reconciler: Reconciler;
const signIn = (username: string) => signInAs(username, `${username} password for tests`);
const post = (cookie: string, body: unknown) => createRoute(request("/api/v1/rollouts", { method: "POST", cookie, body }));
/** Approval sends back the ETag of the rollout as read just before (the version reviewed). */
const act = async (route: typeof approveRoute, verb: string, id: string, cookie: string, comment = "") => {
  const reviewed =
    verb === "approve" ? (await getRoute(request(`/api/v1/rollouts/${id}`, { cookie }), params({ id }))).headers.get("etag") : null;
  const headers: Record<string, string> = reviewed ? { "if-match": reviewed } : {};
  return route(request(`/api/v1/rollouts/${id}/${verb}`, { method: "POST", cookie, body: { comment }, headers }), params({ id }));
};
const saved = async () => Number((await getPool().query(`SELECT count(*) FROM "Rollout"`)).rows[0].count);

const upgrade = (over: Record<string, unknown> = {}) => ({
  kind: "upgrade",
  target: "4.19.11",
  selection: { clusters: ["prod-east", "prod-east-422", "legacy"] },
  strategy: { canaries: 1, maxConcurrency: 1, maxFailures: 0, minSuccessTime: "10m" },
  ...over,
});

/** Adds a conditional update with one risk to a simulated cluster's ClusterVersion, as the CVO reports it. */
function offerConditionalUpdate(cluster: string, version: string, risk: string) {
  const c = fleet.get(cluster)!;
  const info = c.kindFor({ apiVersion: "config.openshift.io/v1", kind: "ClusterVersion" })!;
  const cv = c.store.get(info, undefined, "version") as { status: Record<string, unknown> };
  const conditionalUpdates = [
    {
      release: { version, image: `quay.io/openshift-release-dev/ocp-release@sha256:${"a".repeat(64)}` },
      risks: [
        {
          name: risk,
          message: "Clusters on old boot images may fail to scale",
          url: "https://access.redhat.com/solutions/1",
          matchingRules: [{ type: "Always" }],
        },
      ],
      conditions: [{ type: "Recommended", status: "False", reason: risk, message: "", lastTransitionTime: new Date().toISOString() }],
    },
  ];
  c.store.replace(info, undefined, "version", { ...cv, status: { ...cv.status, conditionalUpdates } } as never, "status");
}

beforeAll(async () => {
  ({ fleet, sim } = await startTestSimulator());
  reconciler = new Reconciler(fleet, scaledClock(60));
  reconciler.start(50);
  offerConditionalUpdate("prod-east", "4.19.13", "AWSOldBootImages");
  await registerSimulatedClusters(sim, fleet.list());
  for (const [username, role] of [
    ["ada", "admin"],
    ["alice", "approver"],
    ["tom", "technician"],
    ["vic", "viewer"],
  ] as const)
    await createUser({ username, role, passwordHash: await hashPassword(`${username} password for tests`) }, { actor: null });
  await makeAllDue();
  await new Collector(testCollectorOptions("test")).runOnce();
});
afterAll(() => {
  reconciler.stop();
  return sim.close();
});

describe("planning a rollout", () => {
  it("shows the plan with dryRun, saving nothing: canaries, waves, each excluded cluster with its reason, the estimate", async () => {
    const tom = await signIn("tom");
    const response = await post(tom, upgrade({ dryRun: true }));
    expect(response.status).toBe(200);
    const plan = await response.json();
    expect(plan.waves.map((w: { name: string; clusters: string[] }) => [w.name, w.clusters])).toEqual([
      ["canaries", ["legacy"]],
      ["wave 1", ["prod-east"]],
    ]);
    expect(plan.excluded).toEqual([{ cluster: "prod-east-422", reason: "it already runs 4.22.3, not older than 4.19.11" }]);
    expect(plan.selected).toBe(3);
    // Two 90-minute steps and one 10-minute soak between them.
    expect(plan.estimate.totalMs).toBe(2 * 90 * 60_000 + 10 * 60_000);
    expect(await saved()).toBe(0);
  });

  it("selects by the fleet view's query string", async () => {
    const tom = await signIn("tom");
    const plan = await (
      await post(tom, upgrade({ dryRun: true, selection: { query: "version=4.19&sort=name&limit=5" }, strategy: {} }))
    ).json();
    expect(plan.selected).toBe(2);
    expect(plan.waves).toEqual([{ name: "wave 1", kind: "batch", group: null, mandatory: false, clusters: ["legacy", "prod-east"] }]);
    const bad = await post(tom, upgrade({ dryRun: true, selection: { query: "version=latest" } }));
    expect([bad.status, await bad.json()]).toEqual([
      400,
      { error: "The version must be a minor version like 4.19, or unknown (in the cluster filter)", field: "selection.query" },
    ]);
  });

  it("refuses a conditional update unless the plan accepts its risks", async () => {
    const tom = await signIn("tom");
    const refused = await (await post(tom, upgrade({ dryRun: true, target: "4.19.13", strategy: {} }))).json();
    expect(refused.waves).toEqual([]);
    expect(refused.excluded).toContainEqual({
      cluster: "prod-east",
      reason: "4.19.13 is only a conditional update for it, with risks the plan does not accept: AWSOldBootImages",
    });
    const accepted = await (
      await post(tom, upgrade({ dryRun: true, target: "4.19.13", acceptRisks: ["AWSOldBootImages"], strategy: {} }))
    ).json();
    expect(accepted.waves[0].clusters).toEqual(["prod-east"]);
    const saved = await post(tom, upgrade({ target: "4.19.13", strategy: {} }));
    expect([saved.status, (await saved.json()).error]).toEqual([400, expect.stringMatching(/^Every selected cluster was excluded/)]);
  });

  it("answers bad input with a 4xx naming the field, and saves nothing", async () => {
    const tom = await signIn("tom");
    // [body, status, the field the answer names apart, the words of its sentence]
    const cases: [unknown, number, string | null, RegExp][] = [
      [upgrade({ strategy: { maxConcurrency: 0 } }), 400, "strategy.maxConcurrency", /^The max concurrency /],
      [upgrade({ strategy: { maxFailures: "150%" } }), 400, "strategy.maxFailures", /150% is over 100%/],
      [upgrade({ windows: { default: { schedule: "0 2 * *", duration: "4h" } } }), 400, "windows.default.schedule", /./],
      [
        upgrade({ windows: { default: { schedule: "0 2 * * 6", duration: "4h", timeZone: "Mars/Olympus" } } }),
        400,
        "windows.default.timeZone",
        /./,
      ],
      [
        upgrade({ windows: { default: { schedule: "0 2 * * 6", duration: "30m", timeZone: "UTC" } } }),
        400,
        "windows.default",
        /^The window is open for 30 min, shorter than a cluster's expected step/,
      ],
      [upgrade({ selection: { clusters: ["nowhere"] } }), 400, "selection.clusters", /^No cluster named nowhere/],
      [
        upgrade({ target: "4.30.1" }),
        400,
        "selection",
        /^Every selected cluster was excluded \(first: legacy: 4\.30\.1 is 11 minor versions beyond 4\.19\.10, and OpenShift updates one minor version at a time/,
      ],
      [
        { kind: "bundle", bundle: "b".repeat(64), selection: { clusters: ["prod-east"] } },
        422,
        "bundle",
        /^The bundle sha256:bbbbbbbbbbbb… has not been vetted/,
      ],
    ];
    for (const [body, status, field, words] of cases) {
      const response = await post(tom, body);
      const answer = (await response.json()) as { error: string; field?: string | null };
      expect([response.status, answer.error, answer.field ?? null]).toEqual([status, expect.stringMatching(words), field]);
      // A sentence, never a schema path such as "strategy.maxFailures:".
      expect(answer.error).not.toMatch(/^[A-Za-z_$][\w$]*(\.[\w$]+)*:/);
    }
    expect(await saved()).toBe(0);
  });

  it("is planned by technicians, not viewers", async () => {
    const vic = await signIn("vic");
    expect((await post(vic, upgrade({ dryRun: true }))).status).toBe(403);
  });
});

describe("a saved rollout", () => {
  it("waits for someone else's approval, holds its clusters, and is paused, resumed and aborted by the right roles, each audited", async () => {
    const [tom, alice, vic] = [await signIn("tom"), await signIn("alice"), await signIn("vic")];
    const created = await post(tom, upgrade());
    expect(created.status).toBe(201);
    const rollout = await created.json();
    expect(rollout).toMatchObject({ status: "awaiting-approval", createdBy: "tom", write: "upgrade to 4.19.11", included: 2, excluded: 1 });
    expect(rollout.strategy).toMatchObject({
      canaries: 1,
      maxConcurrency: "1",
      minSuccessTime: "10 min",
      // The plan names none: an upgrade gets the default deadline (TALM's 240 minutes), shown as saved.
      progressDeadline: "4 h",
      maxFailures: "0",
    });
    expect(rollout.waves.map((w: { name: string; total: number; state: string }) => [w.name, w.total, w.state])).toEqual([
      ["canaries", 1, "pending"],
      ["wave 1", 1, "pending"],
    ]);
    const id = rollout.id as string;

    // Its clusters are held: another plan over them excludes them, naming this rollout.
    const second = await (await post(tom, upgrade({ dryRun: true }))).json();
    expect(second.excluded).toContainEqual({ cluster: "prod-east", reason: `already in rollout ${rollout.number}, which has not ended` });

    const own = await act(approveRoute, "approve", id, tom);
    expect([own.status, (await own.json()).error]).toEqual([403, "This needs the approver role; tom holds technician"]);
    expect((await act(approveRoute, "approve", id, vic)).status).toBe(403);
    const approved = await act(approveRoute, "approve", id, alice, "looks right");
    expect(approved.status).toBe(200);
    expect(await approved.json()).toMatchObject({ status: "running", approvedBy: "alice" });
    const twice = await act(approveRoute, "approve", id, alice);
    expect([twice.status, (await twice.json()).error]).toEqual([409, `Rollout ${rollout.number} is running; it cannot be approved now`]);

    expect((await (await act(pauseRoute, "pause", id, tom, "site visit")).json()).status).toBe("paused");
    expect((await act(resumeRoute, "resume", id, tom)).status).toBe(403);
    expect((await (await act(resumeRoute, "resume", id, alice)).json()).status).toBe("running");
    const noReason = await act(abortRoute, "abort", id, alice);
    // A sentence for the person, the field apart for the form: never "comment: …".
    expect([noReason.status, await noReason.json()]).toEqual([
      400,
      { error: "Say why the rollout is aborted, in at least 3 characters", field: "comment" },
    ]);
    const aborted = await (await act(abortRoute, "abort", id, alice, "wrong target")).json();
    expect(aborted).toMatchObject({ status: "aborted", statusReason: "aborted by alice: wrong target", inFlight: 0 });
    expect(aborted.finishedAt).not.toBeNull();

    const events = (await listAudit()).filter((e) => e.action.startsWith("rollout.")).map((e) => `${e.actor} ${e.action}`);
    expect(events).toEqual(
      expect.arrayContaining([
        "tom rollout.create",
        "alice rollout.approve",
        "tom rollout.pause",
        "alice rollout.resume",
        "alice rollout.abort",
      ]),
    );

    // Ended, it holds nothing.
    const after = await (await post(tom, upgrade({ dryRun: true }))).json();
    expect(after.excluded.map((e: { cluster: string }) => e.cluster)).toEqual(["prod-east-422"]);
  });

  it("an approver may not approve a plan they made", async () => {
    const alice = await signIn("alice");
    const ada = await signIn("ada");
    const created = await (await post(ada, upgrade())).json();
    const own = await act(approveRoute, "approve", created.id, ada);
    expect([own.status, (await own.json()).error]).toEqual([
      403,
      "You planned this rollout; someone else with the approver role must approve it",
    ]);
    expect((await act(approveRoute, "approve", created.id, alice)).status).toBe(200);
    await act(abortRoute, "abort", created.id, alice, "test over");
  });

  it("lists rollouts and pages through a rollout's clusters", async () => {
    const vic = await signIn("vic");
    const list = await (await listRoute(request("/api/v1/rollouts", { cookie: vic }))).json();
    expect(list.rollouts.map((r: { number: number }) => r.number)).toEqual([2, 1]);
    const one = await getRoute(request("/api/v1/rollouts/1", { cookie: vic }), params({ id: "1" }));
    expect((await one.json()).number).toBe(1);
    expect((await getRoute(request("/api/v1/rollouts/99", { cookie: vic }), params({ id: "99" }))).status).toBe(404);
    const page = (after?: string) =>
      clustersRoute(
        request(`/api/v1/rollouts/1/clusters?limit=2${after ? `&after=${encodeURIComponent(after)}` : ""}`, { cookie: vic }),
        params({ id: "1" }),
      );
    const first = await (await page()).json();
    expect(first.clusters.map((c: { clusterName: string; wave: number }) => [c.wave, c.clusterName])).toEqual([
      [-1, "prod-east-422"],
      [0, "legacy"],
    ]);
    const second = await (await page(first.next)).json();
    expect([second.clusters.map((c: { clusterName: string }) => c.clusterName), second.next]).toEqual([["prod-east"], null]);
    expect((await page("garbage")).status).toBe(400);
  });
});

describe("an acknowledgement rollout", () => {
  it("is approved once, then made, written and verified per cluster as an acknowledgement of its own", async () => {
    const [tom, alice] = [await signIn("tom"), await signIn("alice")];
    const created = await post(tom, {
      kind: "acknowledgement",
      selection: { clusters: ["prod-east-422", "prod-east"] },
      acknowledgement: {
        mode: "RHCOSVersion",
        rhcosVersion: "9.6.20250701-0",
        evidence: "Worker AMIs checked in the AWS console, change CHG-1234",
      },
    });
    expect(created.status).toBe(201);
    const rollout = await created.json();
    // prod-east runs 4.19, whose API has no boot-image skew enforcement to acknowledge.
    expect(rollout).toMatchObject({ included: 1, excluded: 1 });
    expect((await act(approveRoute, "approve", rollout.id, alice)).status).toBe(200);
    for (
      let i = 0;
      i < 100 &&
      (await getRoute(request(`/api/v1/rollouts/${rollout.id}`, { cookie: alice }), params({ id: rollout.id })).then((r) => r.json()))
        .status !== "completed";
      i++
    ) {
      await advanceRollouts();
      await followAcknowledgements();
      await new Promise((r) => setTimeout(r, 200));
    }
    const ack = (
      await getPool().query(
        `SELECT "status", "decidedBy", "requestedBy", "verifiedAt", "rolloutId" FROM "Acknowledgement" WHERE "rolloutId" = $1`,
        [rollout.id],
      )
    ).rows;
    expect(ack).toHaveLength(1);
    expect(ack[0]).toMatchObject({ status: "applied", decidedBy: "alice", requestedBy: "tom" });
    expect(ack[0].verifiedAt).not.toBeNull();
    const view = await (await getRoute(request(`/api/v1/rollouts/${rollout.id}`, { cookie: alice }), params({ id: rollout.id }))).json();
    expect(view.status).toBe("completed");
    const c = fleet.get("prod-east-422")!;
    expect(c.writeRequests.get("patch MachineConfiguration")).toBe(1);
  }, 120_000);
});

describe("the fleet view of a rollout", () => {
  it("filters the fleet by rollout and by a cluster's state in it", async () => {
    const vic = await signIn("vic");
    const list = (query: string) => fleetListRoute(request(`/api/v1/clusters?${query}`, { cookie: vic })).then((r) => r.json());
    const all = await list("rollout=1&sort=name");
    expect(all.clusters.map((c: { name: string }) => c.name)).toEqual(["legacy", "prod-east", "prod-east-422"]);
    const excluded = await list("rollout=1&rolloutState=excluded");
    expect(excluded.clusters.map((c: { name: string }) => c.name)).toEqual(["prod-east-422"]);
    expect((await fleetListRoute(request("/api/v1/clusters?rollout=first", { cookie: vic }))).status).toBe(400);
  });
});

describe("people's decisions about a rollout's clusters and waves", () => {
  const decide = (id: string, cookie: string, body: Record<string, unknown>) =>
    decideRoute(request(`/api/v1/rollouts/${id}/clusters`, { method: "POST", cookie, body }), params({ id }));
  const release = (id: string, cookie: string, wave: number) =>
    releaseRoute(request(`/api/v1/rollouts/${id}/release`, { method: "POST", cookie, body: { wave } }), params({ id }));
  const view = async (id: string, cookie: string) => (await getRoute(request(`/api/v1/rollouts/${id}`, { cookie }), params({ id }))).json();
  const states = async (id: string, cookie: string) =>
    Object.fromEntries(
      (await (await clustersRoute(request(`/api/v1/rollouts/${id}/clusters`, { cookie }), params({ id }))).json()).clusters.map(
        (c: { clusterName: string; state: string }) => [c.clusterName, c.state],
      ),
    );

  it("includes an excluded cluster (admins only), skips, retries a failed cluster, and releases each wave, each audited", async () => {
    const [ada, alice, tom] = [await signIn("ada"), await signIn("alice"), await signIn("tom")];
    const rollout = await (
      await post(
        tom,
        upgrade({ strategy: { canaries: 1, maxConcurrency: 1, maxFailures: 0, progressDeadline: "1h", releaseEachWave: true } }),
      )
    ).json();
    const id = rollout.id as string;

    // Include: admins only, with a reason; the cluster joins the last wave.
    const including = { action: "include", clusters: ["prod-east-422"], comment: "checked by hand, CHG-77" };
    expect((await decide(id, tom, including)).status).toBe(403);
    const byApprover = await decide(id, alice, including);
    expect([byApprover.status, (await byApprover.json()).error]).toEqual([403, "Only an admin may include a cluster its checks excluded"]);
    const included = await decide(id, ada, including);
    expect(included.status).toBe(200);
    expect((await included.json()).changed).toEqual(["prod-east-422"]);
    const rows = (
      await getPool().query(
        `SELECT "wave", "state", "includedBy", "includedWhy" FROM "RolloutCluster" WHERE "clusterName" = 'prod-east-422' AND "rolloutId" = $1`,
        [id],
      )
    ).rows;
    expect(rows).toEqual([{ wave: 1, state: "pending", includedBy: "ada", includedWhy: "checked by hand, CHG-77" }]);
    // ...and is skipped again, by name; a bad request names its field and changes nothing.
    const neither = await decide(id, alice, { action: "skip", comment: "neither" });
    expect([neither.status, (await neither.json()).error]).toEqual([
      400,
      expect.stringMatching(/^Name the clusters \(clusters\), the state whose clusters to change \(inState\), or both$/),
    ]);
    expect((await decide(id, alice, { action: "skip", clusters: ["prod-east-422"], comment: "no" })).status).toBe(400);
    expect((await decide(id, alice, { action: "skip", clusters: ["prod-east-422"], comment: "not this time" })).status).toBe(200);

    expect((await act(approveRoute, "approve", id, alice)).status).toBe(200);
    await advanceRollouts();
    expect(await states(id, alice)).toMatchObject({ legacy: "running", "prod-east": "pending", "prod-east-422": "skipped" });
    // Past its deadline the canary fails, and the canaries tolerate no failure: the rollout pauses.
    await advanceRollouts(new Date(Date.now() + 2 * 3600_000));
    expect(await states(id, alice)).toMatchObject({ legacy: "failed" });
    expect((await view(id, alice)).status).toBe("paused");

    // Retry: approvers, failed clusters only.
    expect((await decide(id, tom, { action: "retry", clusters: ["legacy"], comment: "try again" })).status).toBe(403);
    const retried = await decide(id, alice, { action: "retry", inState: "failed", comment: "node replaced" });
    expect((await retried.json()).changed).toEqual(["legacy"]);
    const again = await decide(id, alice, { action: "retry", clusters: ["legacy"], comment: "once more" });
    expect([again.status, (await again.json()).error]).toEqual([409, "Nothing retried: none of them has failed (legacy is pending)"]);
    const reset = (
      await getPool().query(
        `SELECT "state", "startedAt", "writtenAt" FROM "RolloutCluster" WHERE "clusterName" = 'legacy' AND "rolloutId" = $1`,
        [id],
      )
    ).rows[0];
    expect(reset).toEqual({ state: "pending", startedAt: null, writtenAt: null });

    // Skip the canary: the next wave now waits for an approver to release it.
    expect((await decide(id, alice, { action: "skip", clusters: ["legacy"], comment: "done by hand" })).status).toBe(200);
    await act(resumeRoute, "resume", id, alice);
    await advanceRollouts();
    const waiting = await view(id, alice);
    expect(waiting.awaitingRelease).toBe(1);
    expect(waiting.waves.map((w: { state: string }) => w.state)).toEqual(["skipped", "awaiting-release"]);
    expect(await states(id, alice)).toMatchObject({ "prod-east": "pending" });

    expect((await release(id, tom, 1)).status).toBe(403);
    const stale = await release(id, alice, 2);
    expect([stale.status, (await stale.json()).error]).toEqual([409, expect.stringMatching(/waits for wave 1, not wave 2/)]);
    const released = await release(id, alice, 1);
    expect(released.status).toBe(200);
    expect(await released.json()).toMatchObject({ awaitingRelease: null });
    expect((await release(id, alice, 1)).status).toBe(409);
    await advanceRollouts();
    expect(await states(id, alice)).toMatchObject({ "prod-east": "running" });

    const events = (await listAudit()).filter((e) => e.targetId === String(rollout.number)).map((e) => `${e.actor} ${e.action}`);
    expect(events).toEqual(
      expect.arrayContaining(["ada rollout.include", "alice rollout.skip", "alice rollout.retry", "alice rollout.release-wave"]),
    );

    // A cluster's page lists the rollouts it was part of, with its state in each.
    const vic = await signIn("vic");
    const ofLegacy = await (
      await clusterRolloutsRoute(request("/api/v1/clusters/legacy/rollouts", { cookie: vic }), params({ name: "legacy" }))
    ).json();
    expect(ofLegacy.rollouts[0]).toMatchObject({
      number: rollout.number,
      clusterState: "skipped",
      clusterReason: "skipped by alice: done by hand",
    });
    await act(abortRoute, "abort", id, alice, "test over");
  }, 60_000);
});
