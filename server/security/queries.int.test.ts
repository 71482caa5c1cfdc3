import { describe, expect, it } from "vitest";
import { GET as candidates } from "@/app/api/v1/acknowledgements/candidates/route";
import { POST as unpin } from "@/app/api/v1/bundle-applications/[id]/unpin/route";
import { GET as precheck } from "@/app/api/v1/bundles/[digest]/precheck/route";
import { GET as readiness } from "@/app/api/v1/clusters/[name]/readiness/route";
import { GET as timeline } from "@/app/api/v1/clusters/[name]/timeline/route";
import { GET as fleetReadiness } from "@/app/api/v1/fleet/readiness/route";
import { GET as fleetTimeline } from "@/app/api/v1/fleet/timeline/route";
import { GET as clusters } from "@/app/api/v1/clusters/route";
import { seedFleetRows } from "../testing/fleetRows";
import { createUser } from "../store/users";
import { useMigratedDatabase } from "../testing/database";
import { request, sessionCookie } from "../testing/routes";

/** Query strings are checked by the routes' schemas, at the HTTP edge, with answers a person can act on. */
useMigratedDatabase();

async function get(
  handler: (r: Request, c?: { params?: Promise<Record<string, string>> }) => Promise<Response>,
  path: string,
  params = {},
) {
  const user = await createUser(
    { username: `q${Math.random().toString(36).slice(2, 10)}`, role: "technician", passwordHash: "scrypt$x" },
    { actor: null },
  );
  const response = await handler(request(path, { cookie: await sessionCookie(user) }), { params: Promise.resolve(params) });
  return { status: response.status, body: (await response.json()) as { error?: string } };
}

describe("query strings", () => {
  it("name what is wrong with a target", async () => {
    expect(await get(fleetReadiness, "/api/v1/fleet/readiness?target=latest")).toMatchObject({
      status: 400,
      // The sentence for a person, and apart from it the field for a form (never "target: …").
      body: { error: 'The target must be a version like 4.22 or 4.22.3, not "latest"', field: "target" },
    });
    expect((await get(readiness, "/api/v1/clusters/x/readiness?target=4.x", { name: "x" })).status).toBe(400);
    expect(await get(candidates, "/api/v1/acknowledgements/candidates?target=next")).toMatchObject({
      status: 400,
      body: { error: 'The target must be a release like 4.22.3, not "next"' },
    });
    expect((await get(candidates, "/api/v1/acknowledgements/candidates?target=4.22.3")).status).toBe(200);
  });

  it("name what is wrong with a window", async () => {
    expect(await get(fleetTimeline, "/api/v1/fleet/timeline?from=2026-02-30")).toMatchObject({
      status: 400,
      body: { error: "The start (from) must be an ISO 8601 date, e.g. 2026-01-01 or 2026-01-01T00:00:00Z" },
    });
    expect(await get(fleetTimeline, "/api/v1/fleet/timeline?from=2026-02-01&to=2026-01-01")).toMatchObject({
      status: 400,
      body: { error: "The start (from) must be before to" },
    });
    expect(await get(timeline, "/api/v1/clusters/x/timeline?from=1970-01-01&to=2026-01-01", { name: "x" })).toMatchObject({
      status: 400,
      body: { error: "The window may span at most 20 years" },
    });
    expect((await get(fleetTimeline, "/api/v1/fleet/timeline?from=2026-01-01&to=2026-02-01")).status).toBe(200);
    // A valid window reaches the feature, which answers for the cluster.
    expect((await get(timeline, "/api/v1/clusters/x/timeline", { name: "x" })).status).toBe(404);
  });

  it("ask for what is missing", async () => {
    expect(await get(precheck, `/api/v1/bundles/sha256:${"0".repeat(64)}/precheck`, { digest: `sha256:${"0".repeat(64)}` })).toMatchObject({
      status: 400,
      body: { error: "Name the cluster: ?cluster=NAME", field: "cluster" },
    });
  });

  it("a route that takes no body still counts one, and refuses it past the default limit", async () => {
    const user = await createUser({ username: "bodyless", role: "technician", passwordHash: "scrypt$x" }, { actor: null });
    const cookie = await sessionCookie(user);
    const post = (body: string) =>
      unpin(
        request("/api/v1/bundle-applications/00000000-0000-4000-8000-000000000000/unpin", {
          method: "POST",
          cookie,
          headers: { "content-type": "text/plain" },
          body,
        }),
        { params: Promise.resolve({ id: "00000000-0000-4000-8000-000000000000" }) },
      );
    expect((await post("x".repeat(65 * 1024))).status).toBe(413);
    expect((await post("{}")).status).toBe(404);
  });

  it("a crafted paging cursor is a 400 for every sort, never a database error; the cursors pages give out work", async () => {
    await seedFleetRows(
      Array.from({ length: 5 }, (_, i) => ({
        name: `cursor-${i}`,
        version: `4.1${i}.${i}`,
        oldestBootImage: `4.1${i}.0`,
        skewStatus: ["ok", "blocked", "at-risk", "unknown", "ok"][i],
        lastSeenAt: new Date(Date.UTC(2026, 0, i + 1)),
      })),
    );
    const cursorOf = (value: unknown, name: unknown = "cursor-1") => Buffer.from(JSON.stringify([value, name])).toString("base64url");
    // A fixed-seed generator: the same "random" values every run.
    let seed = 23;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const alphabet = "{}0123456789,-:. aZ'\"\\%_\u0000é∞";
    const garbage = [
      "garbage",
      "",
      "{",
      "{1,2",
      "{1,,2}",
      "{a}",
      "{99999999999}",
      "1e5",
      "NaN",
      "-",
      "0x10",
      "99999999999",
      "2026-02-31 00:00:00",
      "2026-13-01 00:00:00",
      "2026-01-01 25:00:00",
      "2026-01-01",
      "infinityy",
      '\'; DROP TABLE "Cluster"; --',
      ...Array.from({ length: 40 }, () =>
        Array.from({ length: 1 + Math.floor(random() * 30) }, () => alphabet[Math.floor(random() * alphabet.length)]).join(""),
      ),
    ];
    for (const sort of ["name", "version", "skew", "oldest", "readiness", "lastSeen"]) {
      // The cursor a real page gives out carries on from there.
      const first = await get(clusters, `/api/v1/clusters?sort=${sort}&limit=2`);
      expect(first.status).toBe(200);
      const next = (first.body as { next: string | null }).next;
      expect(next).not.toBeNull();
      expect((await get(clusters, `/api/v1/clusters?sort=${sort}&limit=2&after=${next}`)).status).toBe(200);
      for (const value of garbage) {
        const answer = await get(clusters, `/api/v1/clusters?sort=${sort}&after=${cursorOf(value)}`);
        expect(answer.status, `${sort} ${JSON.stringify(value)}`).not.toBe(500);
        if (answer.status === 400) expect(answer.body.error).toMatch(/^The page position \(after\) is not a cursor this console gave out/);
      }
    }
    for (const raw of [
      "%%%",
      "e30",
      cursorOf(1),
      cursorOf("x", 5),
      cursorOf("x".repeat(101)),
      "W10",
      Buffer.from("[null]").toString("base64url"),
    ])
      expect((await get(clusters, `/api/v1/clusters?sort=version&after=${raw}`)).status).toBe(400);
    expect(await get(clusters, `/api/v1/clusters?sort=version&after=${cursorOf("garbage")}`)).toMatchObject({
      status: 400,
      body: {
        error: "The page position (after) is not a cursor this console gave out for this sort; start from the first page",
        field: "after",
      },
    });
  });
});
