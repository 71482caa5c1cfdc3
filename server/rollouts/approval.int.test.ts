import { randomBytes, randomUUID } from "node:crypto";
import { formatDuration } from "../../lib/format";
import { parseDuration } from "../domain/rollouts/duration";
import { withResolvedProgressDeadline } from "../domain/rollouts/deadline";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { POST as approveRoute } from "@/app/api/v1/rollouts/[id]/approve/route";
import { POST as decideRoute } from "@/app/api/v1/rollouts/[id]/clusters/route";
import { GET as getRoute } from "@/app/api/v1/rollouts/[id]/route";
import { POST as createRoute } from "@/app/api/v1/rollouts/route";
import { RolloutSettings } from "@/components/rollouts/RolloutSettings";
import { hashPassword } from "../auth/password";
import { testActor } from "../testing/actors";
import { uploadBundle, vetBundle } from "../bundles/bundles";
import { bytesOf, manifest } from "../bundles/testing";
import { Collector } from "../collector/collector";
import { manifestDigest } from "../domain/bundleManifest";
import { RolloutRequestSchema } from "../domain/rollouts/request";
import type { Fleet } from "../simulator/cluster";
import type { SimulatorServer } from "../simulator/http";
import { Reconciler, scaledClock } from "../simulator/reconciler";
import { startTestSimulator } from "../simulator/testing";
import { listAudit } from "../store/audit";
import { getPool } from "../store/db";
import { findRollout, UnreadableRolloutError } from "../store/rolloutRecords";
import { frozenWindowOf } from "../store/rolloutWindows";
import { makeAllDue } from "../store/sweeps";
import { createUser } from "../store/users";
import { useMigratedDatabase } from "../testing/database";
import { covers, NEVER_SAVED, requestFieldsByKind } from "../testing/requestFields";
import { registerSimulatedClusters, testCollectorOptions } from "../testing/fleet";
import { params, request, signIn as signInAs } from "../testing/routes";
import type { RolloutView } from "./contract";
import { advanceRollouts } from "./runner";

/**
 * What an approver is shown and what approving approves, through the route handlers on real
 * Postgres and the simulated fleet: every field of the request schema is shown (in the API's answer
 * and in the page's settings), approval is of the plan's digest, and each cluster's window is frozen
 * at approval.
 */
process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();

let fleet: Fleet;
let sim: SimulatorServer;
let reconciler: Reconciler;
let bundleDigest: string;
const signIn = (username: string) => signInAs(username, `${username} password for tests`);
const create = (cookie: string, body: unknown) => createRoute(request("/api/v1/rollouts", { method: "POST", cookie, body }));
const get = (id: string, cookie: string) => getRoute(request(`/api/v1/rollouts/${id}`, { cookie }), params({ id }));
const approve = (id: string, cookie: string, init: { ifMatch?: string; body?: Record<string, unknown> } = {}) =>
  approveRoute(
    request(`/api/v1/rollouts/${id}/approve`, {
      method: "POST",
      cookie,
      body: init.body ?? {},
      headers: init.ifMatch ? { "if-match": init.ifMatch } : {},
    }),
    params({ id }),
  );
async function planned(cookie: string, body: unknown): Promise<RolloutView> {
  const response = await create(cookie, body);
  const answer = await response.json();
  if (response.status !== 201) throw new Error(`planning answered ${response.status}: ${answer.error}`);
  return answer;
}
const statusOf = async (id: string) => (await getPool().query(`SELECT "status" FROM "Rollout" WHERE "id" = $1`, [id])).rows[0].status;
const setLabels = (cluster: string, labels: Record<string, string>) =>
  getPool().query(`UPDATE "Cluster" SET "labels" = $2::jsonb WHERE "name" = $1`, [cluster, JSON.stringify(labels)]);

beforeAll(async () => {
  ({ fleet, sim } = await startTestSimulator());
  reconciler = new Reconciler(fleet, scaledClock(60));
  reconciler.start(50);
  await registerSimulatedClusters(sim, fleet.list());
  for (const [username, role] of [
    ["ada", "admin"],
    ["alice", "approver"],
    ["tom", "technician"],
  ] as const)
    await createUser({ username, role, passwordHash: await hashPassword(`${username} password for tests`) }, { actor: null });
  const bytes = bytesOf(manifest("4.19.11"));
  bundleDigest = manifestDigest(bytes);
  await vetBundle({ digest: bundleDigest, note: "release 4.19.11 mirrored" }, await testActor("vera", "approver"));
  await uploadBundle(bytes, await testActor("tess", "technician"));
  await makeAllDue();
  await new Collector(testCollectorOptions("test")).runOnce();
}, 120_000);
afterEach(async () => {
  await getPool().query(`UPDATE "Rollout" SET "status" = 'aborted', "finishedAt" = now() WHERE "status" <> ALL('{completed,aborted}')`);
  await setLabels("prod-east", { site: "east" });
});
afterAll(() => {
  reconciler.stop();
  return sim.close();
});

const fieldsByKind = requestFieldsByKind();

/** The value a request sent at a path (records: every value under `*`). */
function valuesAt(input: unknown, path: string): unknown[] {
  let values: unknown[] = [input];
  for (const key of path.split(".")) {
    values = values.flatMap((v) => {
      if (v === null || typeof v !== "object") return [];
      return key === "*" ? Object.values(v) : [(v as Record<string, unknown>)[key]];
    });
  }
  return values.filter((v) => v !== undefined);
}

const DURATION_FIELDS = /(^strategy\.(minSuccessTime|progressDeadline)|\.duration)$/;

/** How a value sent reads in the view's words, where it is not simply its own text. */
const WORDS: Record<string, (value: unknown) => string[]> = {
  "strategy.onFailure": (v) => [v === "continue" ? "go on with the next clusters" : "pause the rollout"],
  "selection.clusters": (v) => [`${(v as string[]).length} named`],
};
function expectedWords(field: string, value: unknown): string[] {
  if (WORDS[field]) return WORDS[field](value);
  // Durations are sent as Kubernetes writes them (45m) and shown in the console's one format (45 min).
  if (DURATION_FIELDS.test(field) && typeof value === "string") {
    const parsed = parseDuration(value);
    if (parsed.ok) return [formatDuration(parsed.ms)];
  }
  if (typeof value === "boolean") return [value ? "yes" : "no"];
  if (Array.isArray(value)) return value.map(String);
  return [String(value)];
}

const upgradeRequest = {
  kind: "upgrade",
  target: "4.19.11",
  acceptRisks: ["AWSOldBootImages"],
  selection: { query: "sort=name" },
  strategy: {
    canaries: 1,
    maxConcurrency: "50%",
    groupBy: "site",
    mandatoryGroups: ["east"],
    minSuccessTime: "45m",
    progressDeadline: "3h",
    maxFailures: "50%",
    onFailure: "continue",
    releaseEachWave: true,
  },
  windows: {
    default: { schedule: "0 2 * * 6", duration: "4h", timeZone: "Europe/Paris" },
    label: "site",
    byValue: { east: { schedule: "30 1 * * 0", duration: "5h", timeZone: "America/New_York" } },
  },
};
const bundleRequest = () => ({
  kind: "bundle",
  bundle: `sha256:${bundleDigest}`,
  startUpgrade: true,
  unpinAfter: true,
  selection: { clusters: ["prod-east"] },
});
const acknowledgementRequest = {
  kind: "acknowledgement",
  selection: { clusters: ["prod-east-422"] },
  acknowledgement: { mode: "RHCOSVersion", rhcosVersion: "9.6.20250701-0", evidence: "Worker AMIs checked in the AWS console, CHG-4711" },
};

const unescapeHtml = (text: string) =>
  text.replace(/&(amp|lt|gt|quot|#x27|#39);/g, (_, e: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#x27": "'", "#39": "'" })[e]!);

describe("what the approver is shown", () => {
  it("shows every field of the request schema, with the value planned, in the API's answer and in the page's settings", async () => {
    const tom = await signIn("tom");
    const alice = await signIn("alice");
    expect(Object.keys(fieldsByKind).sort()).toEqual(["acknowledgement", "bundle", "upgrade"]);
    // The walk reaches nested fields: were it to stop at the top, this test would prove little.
    expect(fieldsByKind.upgrade).toEqual(expect.arrayContaining(["strategy.minSuccessTime", "windows.byValue.*.timeZone", "acceptRisks"]));
    expect(fieldsByKind.acknowledgement).toContain("acknowledgement.evidence");

    const inputs: Record<string, unknown> = { upgrade: upgradeRequest, bundle: bundleRequest(), acknowledgement: acknowledgementRequest };
    const views: Record<string, RolloutView> = {};
    for (const [kind, input] of Object.entries(inputs)) {
      const created = await planned(tom, input);
      const response = await get(created.id, alice);
      expect(response.status).toBe(200);
      const view = (await response.json()) as RolloutView;
      views[kind] = view;
      expect(response.headers.get("etag")).toBe(`"${view.digest}"`);
      // Its clusters free for the next kind's plan.
      await getPool().query(`UPDATE "Rollout" SET "status" = 'aborted' WHERE "id" = $1`, [created.id]);
    }

    const missing: string[] = [];
    const wrong: string[] = [];
    for (const [kind, fields] of Object.entries(fieldsByKind)) {
      for (const field of fields) {
        if (NEVER_SAVED[field]) continue;
        // The selection is one of two ways: each is shown by the rollouts planned that way.
        const shownBy = field.startsWith("selection.")
          ? Object.entries(inputs).filter(([, input]) => valuesAt(input, field).length)
          : [[kind, inputs[kind]] as const];
        for (const [which, input] of shownBy) {
          const view = views[which]!;
          const settings = view.settings.filter((s) => covers(s.field, field));
          if (!settings.length) {
            missing.push(`${which}: ${field}`);
            continue;
          }
          const text = settings.map((s) => s.value).join(" | ");
          for (const value of valuesAt(input, field))
            for (const words of expectedWords(field, value))
              if (!text.includes(words)) wrong.push(`${which}: ${field} shows "${text}", not "${words}"`);

          // The page's settings show the same, under the field's name.
          const html = renderToStaticMarkup(createElement(RolloutSettings, { view, reviewed: view.digest }));
          for (const s of settings) {
            const shown = [
              ...html.matchAll(new RegExp(`data-field="${s.field.replace(/\./g, "\\.")}"><dt[^>]*>([^<]*)</dt><dd[^>]*>([^<]*)</dd>`, "g")),
            ].map((m) => `${unescapeHtml(m[1]!)}: ${unescapeHtml(m[2]!)}`);
            if (!shown.includes(`${s.label}: ${s.value}`)) missing.push(`${which}: ${field} not on the page`);
          }
        }
      }
    }
    expect(missing).toEqual([]);
    expect(wrong).toEqual([]);

    // The words an approver reads, for the settings the issue named.
    const words = (view: RolloutView, field: string) => view.settings.filter((s) => s.field === field).map((s) => `${s.label}: ${s.value}`);
    expect(words(views.bundle!, "startUpgrade")).toEqual([
      "Starts the upgrade: yes: once its images are pinned, each cluster's upgrade to 4.19.11 is started",
    ]);
    expect(words(views.bundle!, "bundle")[1]).toMatch(/^Release in the bundle: 4\.19\.11 \(/);
    expect(words(views.upgrade!, "strategy.maxFailures")).toEqual(["Failures tolerated: 1 (50% of 2 included clusters)"]);
    expect(words(views.upgrade!, "windows.byValue")).toEqual([
      'Window where site=east: opens at "30 1 * * 0" (cron, America/New_York) and stays open 5 h',
    ]);
    expect(views.upgrade!.windows?.byValue).toEqual([
      { value: "east", window: { schedule: "30 1 * * 0", duration: "5 h", timeZone: "America/New_York" } },
    ]);
    expect(views.acknowledgement!.acknowledgement?.evidence).toBe("Worker AMIs checked in the AWS console, CHG-4711");
    // The clusters and the excluded ones: counted, and linked to their list on the page.
    expect([views.upgrade!.included, views.upgrade!.excluded]).toEqual([2, 1]);
    const html = renderToStaticMarkup(createElement(RolloutSettings, { view: views.upgrade!, reviewed: views.upgrade!.digest }));
    expect(html).toContain(`href="/rollouts/${views.upgrade!.number}?state=excluded"`);
    expect(html).toContain("1 excluded by their checks (see why)");
  });
});

describe("approving a version of the plan", () => {
  it("approves the digest reviewed: 428 without one, 409 once the plan changed, 200 with the digest of the plan as it is", async () => {
    const [tom, alice, ada] = [await signIn("tom"), await signIn("alice"), await signIn("ada")];
    const rollout = await planned(tom, {
      kind: "upgrade",
      target: "4.19.11",
      selection: { clusters: ["prod-east", "prod-east-422", "legacy"] },
    });
    const reviewed = (await get(rollout.id, alice)).headers.get("etag")!;
    expect(reviewed).toBe(`"${rollout.digest}"`);

    const none = await approve(rollout.id, alice);
    expect(none.status).toBe(428);
    expect((await none.json()).error).toMatch(/^Send the digest of the plan you reviewed: If-Match/);
    expect((await approve(rollout.id, alice, { ifMatch: "*" })).status).toBe(428);

    // The plan changes under the approver: an admin includes the cluster its checks excluded.
    const included = await decideRoute(
      request(`/api/v1/rollouts/${rollout.id}/clusters`, {
        method: "POST",
        cookie: ada,
        body: { action: "include", clusters: ["prod-east-422"], comment: "the ack is already in place" },
      }),
      params({ id: rollout.id }),
    );
    expect(included.status).toBe(200);
    const now = (await (await get(rollout.id, alice)).json()) as RolloutView;
    expect(now.digest).not.toBe(rollout.digest);

    const stale = await approve(rollout.id, alice, { ifMatch: reviewed, body: { comment: "looks right" } });
    expect(stale.status).toBe(409);
    const refusal = await stale.json();
    expect(refusal.error).toBe(
      `Rollout ${rollout.number} changed since it was reviewed (plan ${rollout.digest.slice(0, 12)}… reviewed, ${now.digest.slice(0, 12)}… now): nothing was approved; reload it and review the plan as it is`,
    );
    expect(refusal.digest).toBe(now.digest);
    expect(await statusOf(rollout.id)).toBe("awaiting-approval");
    // The same from the page's form (the digest in the body).
    expect((await approve(rollout.id, alice, { body: { digest: rollout.digest } })).status).toBe(409);
    expect(await statusOf(rollout.id)).toBe("awaiting-approval");

    const approved = await approve(rollout.id, alice, { body: { digest: now.digest, comment: "reviewed again" } });
    expect(approved.status).toBe(200);
    expect(await approved.json()).toMatchObject({
      status: "running",
      approvedBy: "alice",
      approvedDigest: now.digest,
      windowsFrozen: true,
    });
    const events = (await listAudit({ action: "rollout.approve" })).filter(
      (e) => (e.details as { rollout?: number }).rollout === rollout.number,
    );
    expect(events.map((e) => [e.summary, (e.details as { digest?: string }).digest])).toEqual([
      [`approved rollout ${rollout.number} (upgrade to 4.19.11), plan ${now.digest.slice(0, 12)}…: reviewed again`, now.digest],
    ]);
  });

  it("counts a label that picks a window as part of the plan: changed after review, the approval is refused", async () => {
    const [tom, alice] = [await signIn("tom"), await signIn("alice")];
    const rollout = await planned(tom, {
      kind: "upgrade",
      target: "4.19.11",
      selection: { clusters: ["prod-east"] },
      windows: { label: "site", byValue: { east: { schedule: "0 2 * * *", duration: "3h", timeZone: "UTC" } } },
    });
    await setLabels("prod-east", { site: "west" });
    const stale = await approve(rollout.id, alice, { ifMatch: `"${rollout.digest}"` });
    expect(stale.status).toBe(409);
    const fresh = (await (await get(rollout.id, alice)).json()) as RolloutView;
    expect((await approve(rollout.id, alice, { ifMatch: `W/"${fresh.digest}"` })).status).toBe(200);
  });
});

describe("windows frozen at approval", () => {
  it("keeps each cluster in the window its labels gave at approval, whatever its labels become", async () => {
    const [tom, alice] = [await signIn("tom"), await signIn("alice")];
    // site=east: a window that is always open; anyone else: one that opens once a year.
    const always = { schedule: "* * * * *", duration: "2h", timeZone: "UTC" };
    const yearly = { schedule: "0 0 1 1 *", duration: "4h", timeZone: "UTC" };
    const rollout = await planned(tom, {
      kind: "upgrade",
      target: "4.19.11",
      selection: { clusters: ["prod-east"] },
      windows: { default: yearly, label: "site", byValue: { east: always } },
    });
    expect(await frozenWindowOf(rollout.id, "prod-east")).toBeUndefined();
    expect((await approve(rollout.id, alice, { ifMatch: `"${rollout.digest}"` })).status).toBe(200);
    expect(await frozenWindowOf(rollout.id, "prod-east")).toEqual({ schedule: "* * * * *", durationMs: 2 * 3_600_000, timeZone: "UTC" });

    // After approval the cluster moves to another site: the yearly window would hold it until January.
    await setLabels("prod-east", { site: "west" });
    await advanceRollouts(new Date("2026-06-15T12:00:00Z"));
    const { rows } = await getPool().query(`SELECT "state", "windowOpensAt" FROM "RolloutCluster" WHERE "rolloutId" = $1`, [rollout.id]);
    expect(rows).toEqual([expect.objectContaining({ state: "running", windowOpensAt: null })]);
    expect(await frozenWindowOf(rollout.id, "prod-east")).toEqual({ schedule: "* * * * *", durationMs: 2 * 3_600_000, timeZone: "UTC" });
  });
});

describe("the stored request", () => {
  it("is decoded once by its schema; a row that does not decode is named, never passed on", async () => {
    const user = await testActor("una", "technician");
    const { rows } = await getPool().query(
      `INSERT INTO "Rollout" ("id", "kind", "status", "request", "createdById", "createdBy", "updatedAt")
       VALUES ($1, 'upgrade', 'completed', $2::jsonb, $3, 'una', now()) RETURNING "number"`,
      [
        randomUUID(),
        JSON.stringify({
          kind: "upgrade",
          target: "4.19.11",
          acceptRisks: [],
          selection: { clusters: ["x"] },
          strategy: { minSuccessTime: "30m" },
        }),
        user.user.id,
      ],
    );
    const number = rows[0].number as number;
    const error = await findRollout(String(number)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnreadableRolloutError);
    expect((error as Error).message).toMatch(new RegExp(`^Rollout ${number}'s stored request cannot be read \\(strategy\\.`));
    await getPool().query(`DELETE FROM "Rollout" WHERE "number" = $1`, [number]);
    // A saved plan reads back as the request it was made from.
    const tom = await signIn("tom");
    const saved = await planned(tom, acknowledgementRequest);
    const record = await findRollout(saved.id);
    expect(record?.request).toEqual({ ...withResolvedProgressDeadline(RolloutRequestSchema.parse(acknowledgementRequest)), dryRun: false });
  });
});
