import { beforeAll, describe, expect, it } from "vitest";
import { POST as createRoute } from "@/app/api/v1/users/route";
import { PUT as grantsRoute } from "@/app/api/v1/users/[id]/grants/route";
import { GET as sessionRoute } from "@/app/api/v1/session/route";
import { useMigratedDatabase } from "../testing/database";
import { params, request, sessionCookie, signIn } from "../testing/routes";
import { listAudit } from "../store/audit";
import { createUser, listUsers, type UserRecord } from "../store/users";
import { hashPassword } from "./password";

/** Giving grants through the API, as the Users page does: what is stored, what is refused, what is audited. */
useMigratedDatabase();

let adminCookie: string;
let admin: UserRecord;
const PASSWORD = "a long enough password";

beforeAll(async () => {
  admin = await createUser({ username: "root", role: "admin", passwordHash: await hashPassword(PASSWORD) }, { actor: null });
  adminCookie = await sessionCookie(admin);
});

const put = (id: string, body: unknown, cookie = adminCookie) =>
  grantsRoute(request(`/api/v1/users/${id}/grants`, { method: "PUT", body, cookie }), params({ id }));
const create = (body: unknown) => createRoute(request("/api/v1/users", { method: "POST", body, cookie: adminCookie }));
const stored = async (username: string) => (await listUsers()).find((u) => u.username === username)!;

async function newViewer(username: string) {
  const answer = await create({ username, role: "viewer", password: PASSWORD });
  expect(answer.status).toBe(201);
  return ((await answer.json()) as { user: UserRecord }).user;
}

describe("PUT /api/v1/users/{id}/grants", () => {
  it("replaces every grant, the whole-fleet one included, with scopes in their canonical form and duplicates collapsed", async () => {
    const ada = await newViewer("ada");
    expect(ada.grants).toEqual([{ role: "viewer", scope: "" }]);
    const answer = await put(ada.id, {
      grants: [
        { role: "technician", scope: " platform=AWS & clusterSet=edge-emea " },
        { role: "technician", scope: "clusterSet=edge-emea&platform=AWS" },
        { role: "viewer", scope: "label=region=emea" },
      ],
    });
    expect(answer.status).toBe(200);
    const { user } = (await answer.json()) as { user: UserRecord };
    const expected = [
      { role: "technician", scope: "clusterSet=edge-emea&platform=AWS" },
      { role: "viewer", scope: "label=region=emea" },
    ];
    expect(user.grants).toEqual(expected);
    // The role shown is the highest the grants give.
    expect(user.role).toBe("technician");
    expect((await stored("ada")).grants).toEqual(expected);
  });

  it("audits who changed whose grants, from what to what", async () => {
    const ada = await stored("ada");
    expect((await put(ada.id, { grants: [{ role: "approver", scope: "hub=hub-2" }] })).status).toBe(200);
    const event = (await listAudit({ action: "user.grants" })).find((e) => e.targetId === "ada")!;
    expect(event).toMatchObject({
      actor: "root",
      details: {
        grants: {
          from: [
            { role: "technician", scope: "clusterSet=edge-emea&platform=AWS" },
            { role: "viewer", scope: "label=region=emea" },
          ],
          to: [{ role: "approver", scope: "hub=hub-2" }],
        },
        role: { from: "technician", to: "approver" },
      },
    });
    expect(event.summary).toContain("approver@hub=hub-2");
  });

  it("refuses a scope that does not parse with the parser's own words, and changes nothing", async () => {
    const before = (await stored("ada")).grants;
    const answer = await put((await stored("ada")).id, {
      grants: [
        { role: "viewer", scope: "" },
        { role: "technician", scope: "skew=blocked" },
      ],
    });
    expect(answer.status).toBe(400);
    const { error, field } = (await answer.json()) as { error: string; field: string };
    expect(error).toMatch(/^The scope is not one Fleetskew reads: "skew=blocked" is not a scope term/);
    expect(field).toBe("grants.1.scope");
    expect((await stored("ada")).grants).toEqual(before);
  });

  it("refuses admin as a grant, unknown roles and more than 50 grants", async () => {
    const id = (await stored("ada")).id;
    const admin = await put(id, { grants: [{ role: "admin", scope: "clusterSet=x" }] });
    expect(admin.status).toBe(400);
    expect(((await admin.json()) as { error: string }).error).toMatch(/admin is set as the account's role/);
    expect((await put(id, { grants: [{ role: "owner", scope: "" }] })).status).toBe(400);
    const many = Array.from({ length: 51 }, (_, i) => ({ role: "viewer", scope: `name=c${i}` }));
    const tooMany = await put(id, { grants: many });
    expect(tooMany.status).toBe(400);
    expect(((await tooMany.json()) as { error: string }).error).toMatch(/at most 50 grants/);
    expect((await put(id, { grants: "viewer" })).status).toBe(400);
  });

  it("answers 409 with a sentence for an admin, and 404 for nobody", async () => {
    const other = await create({ username: "root2", role: "admin", password: PASSWORD });
    const { user } = (await other.json()) as { user: UserRecord };
    const answer = await put(user.id, { grants: [{ role: "viewer", scope: "" }] });
    expect(answer.status).toBe(409);
    expect(((await answer.json()) as { error: string }).error).toMatch(/root2 is an admin, who holds the whole fleet and no grants/);
    expect((await stored("root2")).grants).toEqual([{ role: "admin", scope: "" }]);
    expect((await put("00000000-0000-4000-8000-000000000000", { grants: [] })).status).toBe(404);
  });

  it("takes an empty list: the person still signs in, holds nothing and is shown as a viewer", async () => {
    const bob = await newViewer("bob");
    const answer = await put(bob.id, { grants: [] });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { user: UserRecord }).user).toMatchObject({ grants: [], role: "viewer" });
    const cookie = await signIn("bob", PASSWORD);
    const session = await sessionRoute(request("/api/v1/session", { cookie }));
    expect(((await session.json()) as { user: UserRecord }).user.grants).toEqual([]);
  });

  it("is for admins only", async () => {
    const bob = await stored("bob");
    const carol = await newViewer("carol");
    expect((await put(carol.id, { grants: [] }, await sessionCookie(bob))).status).toBe(403);
  });
});

describe("POST /api/v1/users with grants", () => {
  it("creates the account holding those grants instead of its role over the whole fleet", async () => {
    const answer = await create({
      username: "dora",
      role: "viewer",
      password: PASSWORD,
      grants: [
        { role: "technician", scope: "clusterSet=edge-emea" },
        { role: "viewer", scope: "" },
      ],
    });
    expect(answer.status).toBe(201);
    const { user } = (await answer.json()) as { user: UserRecord };
    expect(user).toMatchObject({
      role: "technician",
      grants: [
        { role: "technician", scope: "clusterSet=edge-emea" },
        { role: "viewer", scope: "" },
      ],
    });
    const event = (await listAudit({ action: "user.create" })).find((e) => e.targetId === "dora")!;
    expect(event.details).toMatchObject({
      grants: [
        { role: "technician", scope: "clusterSet=edge-emea" },
        { role: "viewer", scope: "" },
      ],
    });
  });

  it("refuses grants on an admin and a bad scope, creating nobody", async () => {
    const admin = await create({ username: "eve", role: "admin", password: PASSWORD, grants: [] });
    expect(admin.status).toBe(400);
    const bad = await create({ username: "eve", role: "viewer", password: PASSWORD, grants: [{ role: "viewer", scope: "hub=" }] });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: "The scope is not one Fleetskew reads: hub= needs a value", field: "grants.0.scope" });
    expect(await stored("eve")).toBeUndefined();
  });
});
