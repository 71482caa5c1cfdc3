import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as clustersRoute, POST as decideRoute } from "@/app/api/v1/rollouts/[id]/clusters/route";
import { GET as getRoute } from "@/app/api/v1/rollouts/[id]/route";
import { RolloutRequestSchema } from "../domain/rollouts/request";
import { listAudit } from "../store/audit";
import { ClusterRemovedWhilePlanningError, createRollout } from "../store/rolloutPlans";
import { changeRolloutStatus } from "../store/rolloutStatus";
import { changeRolloutClusters } from "../store/rolloutSteps";
import { createUser, type UserRecord } from "../store/users";
import { useMigratedDatabase } from "../testing/database";
import { registerClusterNames } from "../testing/fleet";
import { params, request, sessionCookie } from "../testing/routes";

/**
 * A decision acts on the clusters the person saw: through the route handler, on real Postgres, with
 * the rollout's clusters moved on between what the page showed and the decision landing, as the
 * runner moves them (the store's conditional changes).
 */
process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();

let tom: UserRecord;
let alice: UserRecord;
const audit = { actor: "tom", role: "technician", action: "rollout.plan", targetType: "rollout", targetId: "new", summary: "planned" };

beforeAll(async () => {
  tom = await createUser({ username: "tom", role: "technician", passwordHash: "scrypt$unused" }, { actor: null });
  alice = await createUser({ username: "alice", role: "approver", passwordHash: "scrypt$unused" }, { actor: null });
  await registerClusterNames(["c1", "c2", "c3", "c4", "c5", "c6", "c7"]);
});

/** A running upgrade rollout of seven clusters: c1 and c2 in the first wave, c3 to c7 in the second. */
async function runningRollout() {
  const request = RolloutRequestSchema.parse({
    kind: "upgrade",
    target: "4.19.11",
    selection: { clusters: ["c1", "c2", "c3", "c4", "c5", "c6", "c7"] },
    strategy: { maxFailures: 5 },
  });
  const rollout = await createRollout(
    {
      kind: "upgrade",
      request,
      createdById: tom.id,
      createdBy: tom.username,
      estimateMs: 0,
      waves: [
        { name: "wave 1", kind: "batch", mandatory: false, clusters: ["c1", "c2"] },
        { name: "wave 2", kind: "batch", mandatory: false, clusters: ["c3", "c4", "c5", "c6", "c7"] },
      ],
      excluded: [{ cluster: "x1", reason: "offline" }],
    },
    audit,
  );
  await changeRolloutStatus(rollout.id, ["awaiting-approval"], "running", { approvedBy: "alice" }, { ...audit, action: "rollout.approve" });
  const now = new Date();
  await changeRolloutClusters(rollout.id, ["c1", "c2", "c3", "c4", "c5"], ["pending"], { state: "running", startedAt: now });
  await changeRolloutClusters(rollout.id, ["c1", "c2"], ["running"], { state: "succeeded", finishedAt: now });
  await changeRolloutClusters(rollout.id, ["c3", "c4"], ["running"], { state: "failed", reason: "Degraded", finishedAt: now });
  return rollout;
}

const end = (rollout: { id: string }) =>
  changeRolloutStatus(rollout.id, ["running", "paused"], "aborted", { finished: true }, { ...audit, action: "rollout.abort" });

describe("a decision acts on exactly the clusters the person saw", () => {
  it("skips the failed clusters shown, leaves one that failed since alone, and names what it left alone", async () => {
    const rollout = await runningRollout();
    const id = String(rollout.number);
    const cookie = await sessionCookie(alice);
    const decide = (body: Record<string, unknown>) =>
      decideRoute(request(`/api/v1/rollouts/${id}/clusters`, { method: "POST", cookie, body }), params({ id }));

    // The page showed c3 and c4 failed ("every failed cluster (2)"), c5 running; c5 fails before the decision lands.
    await changeRolloutClusters(rollout.id, ["c5"], ["running"], { state: "failed", reason: "Degraded", finishedAt: new Date() });
    const skipped = await decide({ action: "skip", clusters: ["c3", "c4"], inState: "failed", comment: "known hardware fault" });
    expect(skipped.status).toBe(200);
    const answer = await skipped.json();
    expect(answer.changed).toEqual(["c3", "c4"]);
    expect(answer.leftAlone).toEqual([]);
    expect(answer.rollout.counts).toMatchObject({ succeeded: 2, failed: 1, skipped: 2, pending: 2, excluded: 1 });

    // A stale page sends c4 (skipped since), c5 (failed, as seen) and a name not in the rollout: only c5 changes.
    const stale = await (await decide({ action: "skip", clusters: ["c4", "c5", "zz"], inState: "failed", comment: "second look" })).json();
    expect(stale.changed).toEqual(["c5"]);
    expect(stale.leftAlone).toEqual([
      { cluster: "c4", state: "skipped" },
      { cluster: "zz", state: null },
    ]);

    // Seen pending, now running: nothing changes, and the answer says why, naming the cluster.
    await changeRolloutClusters(rollout.id, ["c6"], ["pending"], { state: "running", startedAt: new Date() });
    const nothing = await decide({ action: "skip", clusters: ["c6"], inState: "pending", comment: "not needed" });
    expect(nothing.status).toBe(409);
    expect((await nothing.json()).error).toBe("Nothing skipped: none of them is still pending (c6 is running)");

    const states = Object.fromEntries(
      (await (await clustersRoute(request(`/api/v1/rollouts/${id}/clusters`, { cookie }), params({ id }))).json()).clusters.map(
        (c: { clusterName: string; state: string }) => [c.clusterName, c.state],
      ),
    );
    expect(states).toEqual({
      c1: "succeeded",
      c2: "succeeded",
      c3: "skipped",
      c4: "skipped",
      c5: "skipped",
      c6: "running",
      c7: "pending",
      x1: "excluded",
    });

    // Each decision's audit event names the clusters it changed, and only those.
    const events = (await listAudit()).filter((e) => e.targetId === id && e.action === "rollout.skip");
    expect(events.map((e) => (e.details as { clusters: string[] }).clusters).sort()).toEqual([["c3", "c4"], ["c5"]]);
    await end(rollout);
  });

  it("a wave whose clusters were skipped reads skipped or partly skipped, never succeeded, and the counts say so", async () => {
    const rollout = await runningRollout();
    const id = String(rollout.number);
    const cookie = await sessionCookie(alice);
    const decide = (body: Record<string, unknown>) =>
      decideRoute(request(`/api/v1/rollouts/${id}/clusters`, { method: "POST", cookie, body }), params({ id }));
    const ended = await decide({ action: "skip", clusters: ["c1"], comment: "retired" });
    expect([ended.status, (await ended.json()).error]).toEqual([
      409,
      "Nothing skipped: none of them is pending, waiting, running or failed (c1 is succeeded)",
    ]);
    expect((await decide({ action: "skip", clusters: ["c3", "c4", "c5", "c6", "c7"], comment: "postponed" })).status).toBe(200);
    const view = await (await getRoute(request(`/api/v1/rollouts/${id}`, { cookie }), params({ id }))).json();
    expect(view.waves.map((w: { state: string }) => w.state)).toEqual(["succeeded", "skipped"]);
    expect(view.counts).toMatchObject({ succeeded: 2, skipped: 5, failed: 0, excluded: 1 });
    expect(view.failed).toBe(0);
    await end(rollout);

    const mixed = await runningRollout();
    const mixedId = String(mixed.number);
    await changeRolloutClusters(mixed.id, ["c5"], ["running"], { state: "succeeded", finishedAt: new Date() });
    await decideRoute(
      request(`/api/v1/rollouts/${mixedId}/clusters`, {
        method: "POST",
        cookie,
        body: { action: "skip", clusters: ["c3", "c4", "c6", "c7"], comment: "postponed" },
      }),
      params({ id: mixedId }),
    );
    const mixedView = await (await getRoute(request(`/api/v1/rollouts/${mixedId}`, { cookie }), params({ id: mixedId }))).json();
    expect(mixedView.waves.map((w: { state: string }) => w.state)).toEqual(["succeeded", "partly-skipped"]);
  });
});

describe("saving a plan", () => {
  it("is refused when an included cluster was removed while planning, and nothing is saved", async () => {
    const before = (await listAudit()).length;
    await expect(
      createRollout(
        {
          kind: "upgrade",
          request: RolloutRequestSchema.parse({ kind: "upgrade", target: "4.19.11", selection: { clusters: ["c1", "gone"] } }),
          createdById: tom.id,
          createdBy: tom.username,
          estimateMs: 0,
          waves: [{ name: "wave 1", kind: "batch", mandatory: false, clusters: ["gone"] }],
          excluded: [],
        },
        audit,
      ),
    ).rejects.toThrow(ClusterRemovedWhilePlanningError);
    expect((await listAudit()).length).toBe(before);
  });
});
