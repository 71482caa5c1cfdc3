import { beforeAll, describe, expect, it } from "vitest";
import { GET as listRoute } from "@/app/api/v1/clusters/route";
import { GET as csvRoute } from "@/app/api/v1/fleet/clusters.csv/route";
import { GET as summaryRoute } from "@/app/api/v1/fleet/summary/route";
import { useMigratedDatabase } from "../testing/database";
import { seedFleetRows, type SeededCluster } from "../testing/fleetRows";
import { createUser } from "../store/users";
import { request, sessionCookie } from "../testing/routes";
import type { ClusterList, FleetSummary } from "./contract";

useMigratedDatabase();

const SKEWS = ["ok", "at-risk", "blocked", "opted-out", "unknown"];
const READINESS = ["pass", "warn", "fail", "unknown"];
const VERSIONS = ["4.9.2", "4.12.7", "4.19.10", "4.22.1", null];
/** 1,000 clusters whose attributes cycle with different periods, so filters and sorts cut across each other. */
const fleet: SeededCluster[] = Array.from({ length: 1000 }, (_, i) => ({
  name: `c-${String(i).padStart(4, "0")}`,
  labels: {
    env: i % 3 === 0 ? "prod" : "dev",
    ...(i % 10 === 0 ? { "fleetskew.io/hub": "east", "cluster.open-cluster-management.io/clusterset": "edge" } : {}),
  },
  platform: i % 4 === 0 ? "AWS" : i % 4 === 1 ? "GCP" : i % 4 === 2 ? null : "VSphere",
  version: VERSIONS[i % 5]!,
  skewStatus: SKEWS[i % 5]!,
  oldestBootImage: VERSIONS[(i + 2) % 5]!,
  readinessStatus: READINESS[i % 4]!,
  readinessBlocker: i % 4 === 2 ? (i % 8 === 2 ? "Boot images too old" : "Pool degraded") : null,
  enforcementMode: i % 2 ? "Manual" : "Automatic",
  registryLess: i % 50 === 0,
  lastSeenAt: new Date(Date.UTC(2026, 10, 1) + (i % 97) * 60_000),
}));

let cookie: string;
beforeAll(async () => {
  await seedFleetRows(fleet);
  cookie = await sessionCookie(await createUser({ username: "vera", role: "viewer", passwordHash: "scrypt$x" }, { actor: null }));
});

const get = (route: typeof listRoute, query: string, headers: Record<string, string> = {}) =>
  route(request(`${route === listRoute ? "/api/v1/clusters" : "/api/v1/fleet/clusters.csv"}?${query}`, { cookie, headers }));

/** Every page of a query, following the cursors. */
async function walk(query: string, limit: number): Promise<{ names: string[]; pages: number; total: number }> {
  const names: string[] = [];
  let after: string | null = null;
  let pages = 0;
  let total = -1;
  do {
    const response = await get(listRoute, `${query}&limit=${limit}${after ? `&after=${after}` : ""}`);
    expect(response.status).toBe(200);
    const page = (await response.json()) as ClusterList;
    total = page.total;
    names.push(...page.clusters.map((c) => c.name));
    after = page.next;
    pages++;
  } while (after);
  return { names, pages, total };
}

describe("the fleet a window at a time", () => {
  it("pages through every matching cluster exactly once, in the sort's order, for each sort and direction", async () => {
    const versionKey = (v: string | null | undefined) => (v ? v.split(".").map(Number) : [999999]);
    const cmpArrays = (a: number[], b: number[]) => {
      for (let i = 0; i < Math.max(a.length, b.length); i++) if ((a[i] ?? -1) !== (b[i] ?? -1)) return (a[i] ?? -1) - (b[i] ?? -1);
      return 0;
    };
    const orders: Record<string, (a: SeededCluster, b: SeededCluster) => number> = {
      name: () => 0,
      version: (a, b) => cmpArrays(versionKey(a.version), versionKey(b.version)),
      skew: (a, b) =>
        ["blocked", "at-risk", "opted-out", "unknown", "ok"].indexOf(a.skewStatus!) -
        ["blocked", "at-risk", "opted-out", "unknown", "ok"].indexOf(b.skewStatus!),
      readiness: (a, b) =>
        ["fail", "warn", "unknown", "pass"].indexOf(a.readinessStatus!) - ["fail", "warn", "unknown", "pass"].indexOf(b.readinessStatus!),
      lastSeen: (a, b) => a.lastSeenAt!.getTime() - b.lastSeenAt!.getTime(),
    };
    const prod = fleet.filter((c) => c.labels!.env === "prod");
    for (const [sort, cmp] of Object.entries(orders))
      for (const dir of ["asc", "desc"] as const) {
        const expected = [...prod]
          .sort((a, b) => (cmp(a, b) || a.name.localeCompare(b.name)) * (dir === "desc" ? -1 : 1))
          .map((c) => c.name);
        const { names, pages, total } = await walk(`label=env%3Dprod&sort=${sort}&dir=${dir}`, 37);
        expect(total).toBe(prod.length);
        expect(pages).toBe(Math.ceil(prod.length / 37));
        expect(names, `${sort} ${dir}`).toEqual(expected);
      }
  });

  it("filters in the database: each filter alone and all together match what the rows say", async () => {
    const cases: [string, (c: SeededCluster) => boolean][] = [
      ["platform=AWS", (c) => c.platform === "AWS"],
      ["platform=unknown", (c) => c.platform === null],
      ["version=4.12", (c) => c.version === "4.12.7"],
      ["version=unknown", (c) => c.version === null],
      ["skew=blocked", (c) => c.skewStatus === "blocked"],
      ["mode=Manual", (c) => c.enforcementMode === "Manual"],
      ["readiness=fail", (c) => c.readinessStatus === "fail"],
      ["blocker=Pool%20degraded", (c) => c.readinessBlocker === "Pool degraded"],
      ["label=env", () => true],
      ["hub=east", (c) => c.labels!["fleetskew.io/hub"] === "east"],
      ["clusterSet=edge", (c) => c.labels!["cluster.open-cluster-management.io/clusterset"] === "edge"],
      ["registryLess=1", (c) => c.registryLess === true],
      ["q=c-01", (c) => c.name.includes("c-01")],
      ["q=%25", () => false],
      [
        "platform=GCP&skew=at-risk&label=env%3Dprod&readiness=warn",
        (c) => c.platform === "GCP" && c.skewStatus === "at-risk" && c.labels!.env === "prod" && c.readinessStatus === "warn",
      ],
    ];
    for (const [query, keep] of cases) {
      const expected = fleet.filter(keep).map((c) => c.name);
      const { names, total } = await walk(`${query}&sort=name`, 1000);
      expect(total, query).toBe(expected.length);
      expect(names, query).toEqual(expected);
    }
  });

  it("answers 304 to a poll whose window did not change, and a new body once it did", async () => {
    const first = await get(listRoute, "skew=blocked&sort=name&limit=50");
    const tag = first.headers.get("etag")!;
    expect(tag).toMatch(/^W\/"/);
    expect(JSON.stringify(await first.json()).length).toBeLessThan(100_000);
    const again = await get(listRoute, "skew=blocked&sort=name&limit=50", { "if-none-match": tag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    // Written by another process (straight into the database): the shared answer of this window is at most two seconds old.
    await seedFleetRows([{ name: "c-0000-new", skewStatus: "blocked" }]);
    const started = Date.now();
    await expect
      .poll(
        async () => {
          const changed = await get(listRoute, "skew=blocked&sort=name&limit=50", { "if-none-match": tag });
          return changed.status === 200 ? ((await changed.json()) as ClusterList).clusters.map((c) => c.name) : [];
        },
        { timeout: 5_000, interval: 250 },
      )
      .toContain("c-0000-new");
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("counts the fleet with aggregates: the summary's counts are the rows'", async () => {
    const response = await summaryRoute(request("/api/v1/fleet/summary", { cookie }));
    const s = (await response.json()) as FleetSummary;
    const all = [...fleet, { name: "c-0000-new", skewStatus: "blocked" }];
    expect(s.clusters).toBe(all.length);
    expect(s.bySkew.blocked).toBe(all.filter((c) => c.skewStatus === "blocked").length);
    expect(s.byPlatform.unknown).toBe(all.filter((c) => !c.platform).length);
    // Each dimension's counts add up to the fleet, and each value's is its rows'.
    for (const counts of [s.bySkew, s.byReadiness, s.byPlatform, s.byMode])
      expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(all.length);
    expect(s.byReadiness.fail).toBe(fleet.filter((c) => c.readinessStatus === "fail").length);
    expect(s.byMode.Manual).toBe(fleet.filter((c) => c.enforcementMode === "Manual").length);
    expect(s.registryLess).toBe(20);
    expect(s.versions.map((v) => v.minor)).toEqual(["4.9", "4.12", "4.19", "4.22", "unknown"]);
    expect(s.mostCommonBlocker).toEqual({ title: "Boot images too old", clusters: 125 });
    const tagged = await summaryRoute(
      request("/api/v1/fleet/summary", { cookie, headers: { "if-none-match": response.headers.get("etag")! } }),
    );
    expect(tagged.status).toBe(304);
  });

  it("exports exactly the matching rows as CSV, whatever the window size, and refuses a bad query with a 400", async () => {
    const response = await get(csvRoute, "platform=VSphere&label=env%3Ddev&sort=version&dir=desc");
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const lines = (await response.text()).trimEnd().split("\r\n");
    const expected = fleet.filter((c) => c.platform === "VSphere" && c.labels!.env === "dev");
    expect(lines[0]).toMatch(/^name,displayName,version,platform,skewStatus,/);
    expect(lines.length - 1).toBe(expected.length);
    expect(new Set(lines.slice(1).map((l) => l.split(",")[0]))).toEqual(new Set(expected.map((c) => c.name)));
    const refused = await get(csvRoute, "version=latest");
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toMatch(/^The version must be a minor version/);
  });

  it("sorts by last seen with the clusters never swept first, and filters the stale: failed contacts and summaries not seen lately", async () => {
    // A group of its own: never swept, seen just now, seen two hours ago; some with a failed contact, some offline.
    const now = Date.now();
    const group: SeededCluster[] = Array.from({ length: 30 }, (_, i) => ({
      name: `seen-${String(i).padStart(2, "0")}`,
      labels: { group: "seen" },
      neverSwept: i % 3 === 0,
      lastSeenAt: new Date(i % 3 === 1 ? now - (i % 4) * 1_000 : now - 2 * 3_600_000 - (i % 5) * 60_000),
      contactFailed: i % 7 === 0,
      offline: i % 11 === 5,
    }));
    await seedFleetRows(group);
    const seenAt = (c: SeededCluster) => (c.neverSwept ? -Infinity : c.lastSeenAt!.getTime());
    for (const dir of ["asc", "desc"] as const) {
      const expected = [...group]
        .sort((a, b) => (seenAt(a) - seenAt(b) || a.name.localeCompare(b.name)) * (dir === "desc" ? -1 : 1))
        .map((c) => c.name);
      const { names, total } = await walk(`label=group%3Dseen&sort=lastSeen&dir=${dir}`, 4);
      expect(total).toBe(group.length);
      expect(names, dir).toEqual(expected);
    }
    // Stale: not offline, and its contact failed or it has not been seen for three sweep intervals (minutes, not hours).
    const stale = (c: SeededCluster) => !c.offline && (c.contactFailed === true || (!c.neverSwept && seenAt(c) < now - 3_600_000));
    const named = (keep: (c: SeededCluster) => boolean) => group.filter(keep).map((c) => c.name);
    expect(named(stale).length).toBeGreaterThan(5);
    for (const [flag, keep] of [
      ["1", stale],
      ["0", (c: SeededCluster) => !stale(c)],
    ] as const) {
      const { names, total } = await walk(`label=group%3Dseen&stale=${flag}&sort=name`, 1000);
      expect(total, `stale=${flag}`).toBe(named(keep).length);
      expect(names, `stale=${flag}`).toEqual(named(keep));
    }
    const rows = ((await (await get(listRoute, "label=group%3Dseen&sort=name&limit=100")).json()) as ClusterList).clusters;
    expect(rows.filter((r) => r.stale).map((r) => r.name)).toEqual(named(stale));
  });

  it("needs a session", async () => {
    expect((await listRoute(request("/api/v1/clusters"))).status).toBe(401);
    expect((await csvRoute(request("/api/v1/fleet/clusters.csv"))).status).toBe(401);
  });
});
