import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { newAcknowledgement } from "../acknowledgements/acknowledgements";
import { uploadBundle, vetBundle } from "../bundles/bundles";
import { bytesOf, manifest } from "../bundles/testing";
import { manifestDigest } from "../domain/bundleManifest";
import { CLUSTER_SET_LABEL } from "../domain/hubEligibility";
import { RolloutRequestSchema } from "../domain/rollouts/request";
import { insertAcknowledgement } from "../store/acknowledgements";
import { insertApplication } from "../store/bundles";
import { getPool } from "../store/db";
import { createRollout } from "../store/rolloutPlans";
import { changeRolloutStatus } from "../store/rolloutStatus";
import { createUser, type UserRecord } from "../store/users";
import { useMigratedDatabase } from "../testing/database";
import { registerClusterNames } from "../testing/fleet";
import { testActor } from "../testing/actors";
import { request, sessionCookie } from "../testing/routes";
import { loadRoutes, type Method, type RouteFile } from "./routes";

/**
 * Route × grant: for each endpoint of the write workflows that acts on a cluster (or on a rollout,
 * a request or an application about one), what a person holding technician and approver over one
 * cluster set gets on a target in that set and on one in another set. Outside: 404, exactly as if
 * it did not exist. Inside: whatever the workflow answers (its own 409s included), never 403 or 404.
 * Lists: the in-scope target listed, the other not. (Per-cluster read surfaces are covered with the
 * cluster page's scope.)
 */
process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();

type Side = "in" | "out";
type Target = { rollout: string; ack: string; application: string; cluster: string };
const targets = {} as Record<Side, Target>;
let scoped: UserRecord;
let digest: string;

beforeAll(async () => {
  await registerClusterNames(["team-a-1", "team-b-1"]);
  for (const [name, set] of [
    ["team-a-1", "team-a"],
    ["team-b-1", "team-b"],
  ])
    await getPool().query(`UPDATE "Cluster" SET "labels" = jsonb_build_object($2::text, $3::text) WHERE "name" = $1`, [
      name,
      CLUSTER_SET_LABEL,
      set,
    ]);
  const tom = await createUser({ username: "tom", role: "technician", passwordHash: "scrypt$unused" }, { actor: null });
  scoped = await createUser(
    {
      username: "team-a",
      role: "approver",
      passwordHash: "scrypt$unused",
      grants: [
        { role: "technician", scope: "clusterSet=team-a" },
        { role: "approver", scope: "clusterSet=team-a" },
      ],
    },
    { actor: null },
  );
  const bytes = bytesOf(manifest("4.19.11"));
  digest = manifestDigest(bytes);
  await vetBundle({ digest, note: "mirrored" }, await testActor("vera", "approver"));
  await uploadBundle(bytes, await testActor("tess", "technician"));
  const audit = { actor: "tom", role: "technician", action: "rollout.create", targetType: "rollout", summary: "planned" };
  for (const [side, cluster] of [
    ["in", "team-a-1"],
    ["out", "team-b-1"],
  ] as const) {
    const rollout = await createRollout(
      {
        kind: "upgrade",
        request: RolloutRequestSchema.parse({ kind: "upgrade", target: "4.19.11", selection: { clusters: [cluster] } }),
        createdById: tom.id,
        createdBy: tom.username,
        estimateMs: 0,
        waves: [{ name: "wave 1", kind: "batch", mandatory: false, clusters: [cluster] }],
        excluded: [],
      },
      audit,
    );
    await changeRolloutStatus(
      rollout.id,
      ["awaiting-approval"],
      "running",
      { approvedBy: "alice" },
      { ...audit, action: "rollout.approve" },
    );
    const clusterId = (await getPool().query(`SELECT "id" FROM "Cluster" WHERE "name" = $1`, [cluster])).rows[0].id as string;
    const ack = await insertAcknowledgement(
      newAcknowledgement(
        clusterId,
        { mode: "RHCOSVersion", rhcosVersion: "9.6.20250701-0", evidence: "Worker MachineSets moved to a new AMI, change CHG-1234." },
        tom,
        null,
      ),
      { actor: "tom", action: "acknowledgement.request", targetType: "cluster", targetId: cluster },
    );
    const { application } = await insertApplication(
      { bundleDigest: digest, clusterId, pools: [], confirmedWarnings: [], createdBy: "tom" },
      { actor: "tom", role: "technician", ip: null, summary: "applied" },
    );
    targets[side] = { rollout: String(rollout.number), ack: ack.id, application: application.id, cluster };
  }
}, 60_000);

/** What the in-scope call must answer: any status but these (the workflow's own refusals are fine). */
const NOT_REFUSED = [401, 403, 404];
type Row = {
  method: Method;
  file: string;
  params?: (t: Target) => Record<string, string>;
  path: (t: Target) => string;
  body?: (t: Target) => unknown;
  /** Reads the cluster live: its clusters here have no credentials, so past the scope check it fails its own way. */
  live?: true;
};

const rollout = (verb: string, body: (t: Target) => unknown = () => ({ comment: "checked by the test" })): Row => ({
  method: "POST",
  file: `app/api/v1/rollouts/[id]/${verb}/route.ts`,
  params: (t) => ({ id: t.rollout }),
  path: (t) => `/api/v1/rollouts/${t.rollout}/${verb}`,
  body,
});

const ROWS: Row[] = [
  {
    method: "GET",
    file: "app/api/v1/rollouts/[id]/route.ts",
    params: (t) => ({ id: t.rollout }),
    path: (t) => `/api/v1/rollouts/${t.rollout}`,
  },
  {
    method: "GET",
    file: "app/api/v1/rollouts/[id]/clusters/route.ts",
    params: (t) => ({ id: t.rollout }),
    path: (t) => `/api/v1/rollouts/${t.rollout}/clusters`,
  },
  {
    method: "POST",
    file: "app/api/v1/rollouts/[id]/clusters/route.ts",
    params: (t) => ({ id: t.rollout }),
    path: (t) => `/api/v1/rollouts/${t.rollout}/clusters`,
    body: (t) => ({ action: "retry", clusters: [t.cluster], comment: "try again" }),
  },
  rollout("approve", () => ({ digest: "0".repeat(64) })),
  rollout("release", () => ({ wave: 1 })),
  rollout("pause"),
  rollout("resume"),
  rollout("abort"),
  {
    method: "POST",
    file: "app/api/v1/acknowledgements/route.ts",
    path: () => "/api/v1/acknowledgements",
    body: (t) => ({ cluster: t.cluster, mode: "None", evidence: "Boot images are updated by hand on this cluster, see CHG-1." }),
  },
  {
    method: "POST",
    file: "app/api/v1/acknowledgements/[id]/reject/route.ts",
    params: (t) => ({ id: t.ack }),
    path: (t) => `/api/v1/acknowledgements/${t.ack}/reject`,
    body: () => ({ comment: "not this week" }),
  },
  {
    method: "GET",
    file: "app/api/v1/bundle-applications/[id]/route.ts",
    params: (t) => ({ id: t.application }),
    path: (t) => `/api/v1/bundle-applications/${t.application}`,
    live: true,
  },
  {
    method: "POST",
    file: "app/api/v1/bundle-applications/[id]/start-upgrade/route.ts",
    params: (t) => ({ id: t.application }),
    path: (t) => `/api/v1/bundle-applications/${t.application}/start-upgrade`,
    body: () => ({}),
  },
  {
    method: "POST",
    file: "app/api/v1/bundle-applications/[id]/unpin/route.ts",
    params: (t) => ({ id: t.application }),
    path: (t) => `/api/v1/bundle-applications/${t.application}/unpin`,
    body: () => ({}),
  },
  {
    method: "POST",
    file: "app/api/v1/bundle-applications/route.ts",
    path: () => "/api/v1/bundle-applications",
    body: (t) => ({ digest: `sha256:${digest}`, cluster: t.cluster }),
  },
  {
    method: "GET",
    file: "app/api/v1/bundles/[digest]/precheck/route.ts",
    params: () => ({ digest: `sha256:${digest}` }),
    path: (t) => `/api/v1/bundles/sha256:${digest}/precheck?cluster=${t.cluster}`,
    live: true,
  },
];

/** The lists of the write workflows: what each answers, and how to find a target in it. */
const LISTS: { file: string; path: string; has: (answer: string, t: Target) => boolean }[] = [
  {
    file: "app/api/v1/rollouts/route.ts",
    path: "/api/v1/rollouts",
    has: (a, t) => JSON.parse(a).rollouts.some((r: { number: number }) => String(r.number) === t.rollout),
  },
  { file: "app/api/v1/acknowledgements/route.ts", path: "/api/v1/acknowledgements", has: (a, t) => a.includes(t.ack) },
  { file: "app/api/v1/bundle-applications/route.ts", path: "/api/v1/bundle-applications", has: (a, t) => a.includes(t.application) },
  { file: "app/api/v1/audit/route.ts", path: "/api/v1/audit?limit=500", has: (a, t) => a.includes(`"${t.cluster}"`) },
];

describe("route × grant", () => {
  let routes: Map<string, RouteFile>;
  const call = async (file: string, method: Method, path: string, params: Record<string, string>, body?: unknown) => {
    const handler = routes.get(file)?.handlers[method];
    if (!handler) throw new Error(`${method} ${file}: no such handler`);
    const cookie = await sessionCookie(scoped);
    const response = await handler(request(path, { method, cookie, body }), { params: Promise.resolve(params) });
    return { status: response.status, text: await response.text() };
  };

  it("answers 404 outside the holder's scope, and lets the workflow answer inside it", async () => {
    routes = new Map((await loadRoutes()).map((r) => [r.file, r]));
    const mismatches: string[] = [];
    for (const row of ROWS) {
      // Outside first: a refusal there changes nothing the in-scope call then meets.
      for (const side of ["out", "in"] as const) {
        const t = targets[side];
        const got = await call(row.file, row.method, row.path(t), row.params?.(t) ?? {}, row.body?.(t));
        const where = `${row.method} ${row.file} on ${side}-of-scope ${t.cluster}`;
        if (side === "out" && got.status !== 404) mismatches.push(`${where}: expected 404, got ${got.status} ${got.text}`);
        if (
          side === "out" &&
          got.text.includes("team-b") &&
          !row.path(t).includes(t.cluster) &&
          !JSON.stringify(row.body?.(t) ?? "").includes(t.cluster)
        )
          mismatches.push(`${where}: names the cluster outside: ${got.text}`);
        // 502/503: the workflow reached for a cluster that is never there in this test; a 500 is a fault.
        if (side === "in" && (NOT_REFUSED.includes(got.status) || (got.status === 500 && !row.live)))
          mismatches.push(`${where}: expected the workflow's answer, got ${got.status} ${got.text}`);
      }
    }
    expect(mismatches).toEqual([]);
  });

  it("lists the in-scope target and not the other", async () => {
    routes ??= new Map((await loadRoutes()).map((r) => [r.file, r]));
    const mismatches: string[] = [];
    for (const list of LISTS) {
      const got = await call(list.file, "GET", list.path, {});
      if (got.status !== 200) mismatches.push(`${list.file}: ${got.status} ${got.text}`);
      else {
        if (!list.has(got.text, targets.in)) mismatches.push(`${list.file}: the in-scope ${targets.in.cluster} is missing`);
        if (list.has(got.text, targets.out)) mismatches.push(`${list.file}: lists the out-of-scope ${targets.out.cluster}`);
      }
    }
    expect(mismatches).toEqual([]);
  });
});
