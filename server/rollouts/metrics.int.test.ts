import { randomBytes } from "node:crypto";
import { registerClusterNames } from "../testing/fleet";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as metricsRoute } from "@/app/metrics/route";
import type { Amount } from "../domain/rollouts/amount";
import { RolloutRequestSchema } from "../domain/rollouts/request";
import { getPool } from "../store/db";
import { decideRolloutClusters } from "../store/rolloutDecisions";
import { createRollout } from "../store/rolloutPlans";
import type { RolloutRecord } from "../store/rolloutRecords";
import { changeRolloutStatus } from "../store/rolloutStatus";
import { changeRolloutClusters } from "../store/rolloutSteps";
import { createUser, type UserRecord } from "../store/users";
import { useMigratedDatabase } from "../testing/database";
import { request, sessionCookie } from "../testing/routes";
import { ROLLOUT_SERIES_LIMIT } from "./metrics";

/**
 * Rollout series on /metrics, scraped through its route handler as Prometheus would (an admin's
 * session), from rollouts saved and moved on by the store functions the runner and the API use, on
 * real Postgres.
 */
process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();

let admin: UserRecord;
const audit = { actor: "tom", role: "technician", action: "rollout.plan", targetType: "rollout", targetId: "new", summary: "planned" };
const scrape = async () => {
  const response = await metricsRoute(request("/metrics", { cookie: await sessionCookie(admin), origin: null }));
  expect(response.status).toBe(200);
  return response.text();
};
const series = (text: string, name: string) => text.split("\n").filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

/** A request as a saved plan holds it (the store decodes it), with the failure budget given as the plan stores it. */
function requestOf(kind: RolloutRecord["kind"], maxFailures: Amount) {
  const base =
    kind === "upgrade"
      ? { kind, target: "4.19.11" }
      : kind === "bundle"
        ? { kind, bundle: "a".repeat(64) }
        : { kind, acknowledgement: { mode: "None", evidence: "checked by hand in the console" } };
  const parsed = RolloutRequestSchema.parse({ ...base, selection: { clusters: ["any"] } });
  return { ...parsed, strategy: { ...parsed.strategy, maxFailures, minSuccessTime: 0 } };
}

const registered = new Set<string>();
async function plan(waves: string[][], excluded: string[], maxFailures: Amount, kind: RolloutRecord["kind"] = "upgrade") {
  const unregistered = waves.flat().filter((name) => !registered.has(name));
  await registerClusterNames(unregistered);
  unregistered.forEach((name) => registered.add(name));
  return createRollout(
    {
      kind,
      request: requestOf(kind, maxFailures),
      createdById: admin.id,
      createdBy: admin.username,
      estimateMs: 0,
      waves: waves.map((clusters, i) => ({ name: `wave ${i}`, kind: "batch", mandatory: false, clusters })),
      excluded: excluded.map((cluster) => ({ cluster, reason: "offline" })),
    },
    audit,
  );
}
const approve = (r: RolloutRecord) =>
  changeRolloutStatus(r.id, ["awaiting-approval"], "running", { approvedBy: "alice" }, { ...audit, action: "rollout.approve" });
const end = (r: RolloutRecord, to: "completed" | "aborted") =>
  changeRolloutStatus(r.id, ["running", "paused", "awaiting-approval"], to, { finished: true }, { ...audit, action: `rollout.${to}` });

beforeAll(async () => {
  admin = await createUser({ username: "ada", role: "admin", passwordHash: "scrypt$unused" }, { actor: null });
});

describe("rollouts on /metrics", () => {
  it("counts a running rollout's clusters in each state, its failure budget used and its wave; an ended one has no series", async () => {
    // Wave 0 done, wave 1 under way (one failed, two running, one waiting for its window, one skipped), wave 2 untouched.
    const waves = [names("a", 2), names("b", 6), names("c", 10)];
    const running = await plan(waves, names("x", 3), { count: 2 });
    await approve(running);
    const now = new Date();
    await changeRolloutClusters(running.id, ["a0", "a1", "b0", "b1", "b2"], ["pending"], { state: "running", startedAt: now });
    await changeRolloutClusters(running.id, ["a0", "a1"], ["running"], { state: "succeeded", finishedAt: now });
    await changeRolloutClusters(running.id, ["b0"], ["running"], { state: "failed", reason: "degraded", finishedAt: now });
    await changeRolloutClusters(running.id, ["b3"], ["pending"], {
      state: "waiting-window",
      windowOpensAt: new Date(Date.now() + 3_600_000),
    });
    await decideRolloutClusters(
      running.id,
      "skip",
      { names: ["b4"] },
      { allowedStatuses: ["running"], by: "alice", why: "retired" },
      () => ({
        ...audit,
        action: "rollout.skip",
      }),
    );
    // Another plan, not approved yet: every cluster pending, a percentage budget over its 4 included clusters.
    const waiting = await plan([names("d", 4)], [], { percent: 50 }, "bundle");

    const text = await scrape();
    const r = running.number;
    const w = waiting.number;
    const counts = (n: number, kind: string, status: string, values: Record<string, number>) =>
      Object.entries(values).map(
        ([state, v]) => `fleetskew_rollout_clusters{rollout="${n}",kind="${kind}",status="${status}",state="${state}"} ${v}`,
      );
    expect(series(text, "fleetskew_rollout_clusters")).toEqual([
      ...counts(r, "upgrade", "running", {
        pending: 11,
        "waiting-window": 1,
        running: 2,
        succeeded: 2,
        failed: 1,
        skipped: 1,
        excluded: 3,
      }),
      ...counts(w, "bundle", "awaiting-approval", {
        pending: 4,
        "waiting-window": 0,
        running: 0,
        succeeded: 0,
        failed: 0,
        skipped: 0,
        excluded: 0,
      }),
    ]);
    expect(series(text, "fleetskew_rollout_failure_budget_used_ratio")).toEqual([
      `fleetskew_rollout_failure_budget_used_ratio{rollout="${r}",kind="upgrade"} 0.5`,
      `fleetskew_rollout_failure_budget_used_ratio{rollout="${w}",kind="bundle"} 0`,
    ]);
    expect(series(text, "fleetskew_rollout_wave")).toEqual([
      `fleetskew_rollout_wave{rollout="${r}",kind="upgrade"} 1`,
      `fleetskew_rollout_wave{rollout="${w}",kind="bundle"} 0`,
    ]);
    expect(series(text, "fleetskew_rollout_waves")).toEqual([
      `fleetskew_rollout_waves{rollout="${r}",kind="upgrade"} 3`,
      `fleetskew_rollout_waves{rollout="${w}",kind="bundle"} 1`,
    ]);
    expect(series(text, "fleetskew_rollouts_active")).toEqual(["fleetskew_rollouts_active 2"]);

    // Two more failures spend the budget (3 of 2 tolerated): the ratio says so before anyone reads the page.
    await changeRolloutClusters(running.id, ["b1", "b2"], ["running"], { state: "failed", finishedAt: new Date() });
    expect(series(await scrape(), "fleetskew_rollout_failure_budget_used_ratio")).toContain(
      `fleetskew_rollout_failure_budget_used_ratio{rollout="${r}",kind="upgrade"} 1.5`,
    );

    await end(running, "completed");
    await end(waiting, "aborted");
    const after = await scrape();
    for (const name of [
      "fleetskew_rollout_clusters",
      "fleetskew_rollout_failure_budget_used_ratio",
      "fleetskew_rollout_wave",
      "fleetskew_rollout_waves",
    ])
      expect(series(after, name), name).toEqual([]);
    expect(series(after, "fleetskew_rollouts_active")).toEqual(["fleetskew_rollouts_active 0"]);
  });

  it(`has series for ${ROLLOUT_SERIES_LIMIT} rollouts at most, running ones first; label values are never the database's text`, async () => {
    const plans: RolloutRecord[] = [];
    for (let i = 0; i < ROLLOUT_SERIES_LIMIT + 5; i++) plans.push(await plan([[`m${i}`]], [], { count: 0 }));
    // The newest is running: it is reported although older ones awaiting approval are left out.
    const newest = plans.at(-1)!;
    await approve(newest);
    await getPool().query(`UPDATE "Rollout" SET "kind" = $2 WHERE "id" = $1`, [newest.id, 'upgrade"} 1\nfleetskew_forged 1']);
    const text = await scrape();
    expect(series(text, "fleetskew_rollouts_active")).toEqual([`fleetskew_rollouts_active ${ROLLOUT_SERIES_LIMIT + 5}`]);
    const reported = new Set(series(text, "fleetskew_rollout_clusters").map((l) => /rollout="(\d+)"/.exec(l)![1]));
    expect(reported.size).toBe(ROLLOUT_SERIES_LIMIT);
    expect(reported.has(String(newest.number))).toBe(true);
    expect(series(text, "fleetskew_rollout_clusters").length).toBe(ROLLOUT_SERIES_LIMIT * 7);
    expect(text).toContain(`fleetskew_rollout_clusters{rollout="${newest.number}",kind="unknown",status="running",state="pending"} 1`);
    expect(text).not.toContain("fleetskew_forged");
    for (const p of plans) await end(p, "aborted");
  });
});
