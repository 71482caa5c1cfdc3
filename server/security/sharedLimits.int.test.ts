/**
 * Work limits across web processes: a second process on the same database (server/testing/
 * workSlotHolder.ts, which runs previews through the web process's own limiter) and this one, which
 * answers POST /api/v1/preview. A person cannot multiply a limit by the number of replicas.
 */
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as previewRoute } from "@/app/api/v1/preview/route";
import { actorFor } from "../auth/actor";
import { ensureInitialAccounts } from "../auth/bootstrap";
import { addUser } from "../auth/users";
import { WORK_LIMITS } from "../domain/workLimits";
import { listUsers } from "../store/users";
import { runningWork, takeWorkSlot } from "../store/workSlots";
import { useMigratedDatabase } from "../testing/database";
import { startScript } from "../testing/scriptProcess";
import { request, signIn } from "../testing/routes";
import { workLimiter } from "./workLimiter";

const db = useMigratedDatabase();
const children: ChildProcess[] = [];
let ann: { id: string; cookie: string };
let bob: { id: string; cookie: string };

beforeAll(async () => {
  await ensureInitialAccounts({ dataDir: "/nonexistent", adminPassword: "admin password here", demo: false });
  const admin = actorFor((await listUsers())[0]!, null);
  for (const name of ["ann", "bob"]) await addUser({ username: name, role: "technician", password: `${name} password here` }, admin);
  const users = await listUsers();
  const id = (name: string) => users.find((u) => u.username === name)!.id;
  ann = { id: id("ann"), cookie: await signIn("ann", "ann password here") };
  bob = { id: id("bob"), cookie: await signIn("bob", "bob password here") };
}, 30_000);
afterAll(() => children.forEach((c) => c.kill("SIGKILL")));

/** Starts the other web process holding one preview for each of `people`; resolves once it holds them, or with its refusal. */
async function otherProcess(people: string[]): Promise<{ child: ChildProcess; said: string }> {
  const child = startScript("server/testing/workSlotHolder.ts", {
    NODE_ENV: "test",
    DATABASE_URL: db().url,
    FLEETSKEW_TEST_HOLD_KIND: "preview",
    FLEETSKEW_TEST_HOLD_PEOPLE: people.join(","),
  });
  children.push(child);
  let output = "";
  const said = await new Promise<string>((resolve) => {
    const listen = (d: Buffer) => {
      output += String(d);
      if (/^(holding|refused)/m.test(output)) resolve(output.trim());
    };
    child.stdout.on("data", listen);
    child.stderr.on("data", listen);
    child.on("exit", () => resolve(output.trim()));
  });
  return { child, said };
}

const stopped = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.on("exit", () => resolve());
    child.kill("SIGTERM");
  });

const preview = async (cookie: string) => {
  const response = await previewRoute(request("/api/v1/preview", { method: "POST", cookie, body: {} }));
  return { status: response.status, body: await response.text() };
};

describe("work limits across two web processes", () => {
  it("refuses a person's preview here while the other process runs as many as one person may, and allows it once they end", async () => {
    const perPerson = WORK_LIMITS.preview.perPerson;
    // Before: ann's request is read (and refused for its empty body), not refused for her limit.
    expect((await preview(ann.cookie)).status).toBe(400);
    const other = await otherProcess(Array.from({ length: perPerson }, () => ann.id));
    expect(other.said).toBe(`holding ${perPerson}`);
    expect(await runningWork("preview", ann.id)).toBe(perPerson);
    const refused = await preview(ann.cookie);
    expect(refused.status).toBe(429);
    expect(refused.body).toContain(`You already have ${perPerson} previews running`);
    // Someone else is not held back by ann's limit.
    expect((await preview(bob.cookie)).status).toBe(400);
    await stopped(other.child);
    expect(await runningWork("preview", ann.id)).toBe(0);
    expect((await preview(ann.cookie)).status).toBe(400);
  }, 30_000);

  it("holds the total across processes, and the other process is refused what this one holds", async () => {
    const total = WORK_LIMITS.preview.total;
    const other = await otherProcess(Array.from({ length: total }, (_, i) => `someone-${i}`));
    expect(other.said).toBe(`holding ${total}`);
    const busy = await preview(bob.cookie);
    expect(busy.status).toBe(429);
    expect(busy.body).toContain(`busy with ${total} previews`);
    await stopped(other.child);

    // The other way round: this process runs ann's previews, the other is refused hers.
    const releases: (() => void)[] = [];
    for (let i = 0; i < WORK_LIMITS.preview.perPerson; i++) releases.push(await workLimiter().acquire("preview", ann.id));
    const refusedThere = await otherProcess([ann.id]);
    expect(refusedThere.said).toMatch(/^refused: You already have \d previews running/);
    releases.forEach((release) => release());
  }, 30_000);

  it("frees the slots of a process that was killed once their lease runs out", async () => {
    const taken = await takeWorkSlot({ kind: "preview", person: "killed", process: "web:gone", leaseMs: 300 }, () => true);
    expect(taken.id).not.toBeNull();
    expect(await runningWork("preview", "killed")).toBe(1);
    await new Promise((r) => setTimeout(r, 400));
    expect(await runningWork("preview", "killed")).toBe(0);
  });
});
