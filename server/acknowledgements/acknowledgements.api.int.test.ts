import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as approveRoute } from "@/app/api/v1/acknowledgements/[id]/approve/route";
import { POST as rejectRoute } from "@/app/api/v1/acknowledgements/[id]/reject/route";
import { GET as listRoute, POST as requestRoute } from "@/app/api/v1/acknowledgements/route";
import { hashPassword } from "../auth/password";
import { Collector } from "../collector/collector";
import type { Fleet } from "../simulator/cluster";
import type { SimulatorServer } from "../simulator/http";
import { Reconciler, scaledClock } from "../simulator/reconciler";
import { setPoolDegraded, startTestSimulator } from "../simulator/testing";
import { listAudit } from "../store/audit";
import { makeAllDue } from "../store/sweeps";
import { createUser } from "../store/users";
import { useMigratedDatabase } from "../testing/database";
import { params as routeParams, request, signIn as signInAs } from "../testing/routes";
import { registerSimulatedClusters, testCollectorOptions } from "../testing/fleet";
import { followAcknowledgements } from "./acknowledgements";

/**
 * The acknowledgement API through its route handlers, given real Requests and real sessions,
 * against real Postgres and the simulator: what a browser or a script gets back.
 */
process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();

let fleet: Fleet;
let sim: SimulatorServer;
let reconciler: Reconciler;

const signIn = (username: string) => signInAs(username, `${username} password for tests`);

const params = (id: string) => routeParams({ id });
const decide = (route: typeof approveRoute, id: string, cookie: string, comment = "") =>
  route(
    request(`/api/v1/acknowledgements/${id}/${route === approveRoute ? "approve" : "reject"}`, {
      method: "POST",
      cookie,
      body: { comment },
    }),
    params(id),
  );

beforeAll(async () => {
  ({ fleet, sim } = await startTestSimulator());
  reconciler = new Reconciler(fleet, scaledClock(1));
  reconciler.start(50);
  await registerSimulatedClusters(sim, fleet.list());
  for (const [username, role] of [
    ["ada", "admin"],
    ["alice", "approver"],
    ["tom", "technician"],
  ] as const)
    await createUser({ username, role, passwordHash: await hashPassword(`${username} password for tests`) }, { actor: null });
  await makeAllDue();
  await new Collector(testCollectorOptions("test")).runOnce();
});
afterAll(() => {
  reconciler.stop();
  return sim.close();
});

describe("POST /api/v1/acknowledgements and the decision on it", () => {
  it("an admin who requested it cannot approve or reject it; a role without approval cannot decide; an approver can, once", async () => {
    const ada = await signIn("ada");
    const alice = await signIn("alice");
    const tom = await signIn("tom");

    const created = await requestRoute(
      request("/api/v1/acknowledgements", {
        method: "POST",
        cookie: ada,
        body: {
          cluster: "prod-east-422",
          mode: "RHCOSVersion",
          rhcosVersion: "9.6.20250701-0",
          evidence: "Worker MachineSets moved to ami-0a1b2c3d (RHCOS 9.6.20250701-0) on 2026-11-18, change CHG-1234.",
        },
      }),
    );
    expect(created.status).toBe(201);
    const ack = await created.json();
    expect(ack).toMatchObject({ id: expect.any(String), status: "pending", requestedBy: "ada", cluster: "prod-east-422" });

    // The requester holds the admin role, which may approve in general: the rule is about the person.
    const own = await decide(approveRoute, ack.id, ada, "looks right to me");
    expect(own.status).toBe(403);
    expect((await own.json()).error).toBe("You requested this acknowledgement; someone else with the approver role must approve it");
    const ownReject = await decide(rejectRoute, ack.id, ada, "changed my mind");
    expect(ownReject.status).toBe(403);
    expect((await ownReject.json()).error).toMatch(/^You requested this acknowledgement/);
    const [refusal] = await listAudit({ action: "request.refused", actor: "ada" });
    expect(refusal).toMatchObject({ outcome: "denied", targetId: `POST /api/v1/acknowledgements/${ack.id}/reject` });

    // A technician has no approval rights at all.
    const byTech = await decide(rejectRoute, ack.id, tom, "not needed");
    expect(byTech.status).toBe(403);
    expect((await byTech.json()).error).toBe("This needs the approver role; tom holds technician");

    const pending = await (await listRoute(request("/api/v1/acknowledgements?status=pending", { cookie: tom }))).json();
    expect(pending.acknowledgements.map((a: { id: string }) => a.id)).toEqual([ack.id]);

    // A pool degrades meanwhile: machine-config reports Upgradeable=False, reason DegradedPool, which overrides
    // the boot-image reason (docs/openshift.md §17.3): whether boot images still block cannot be seen, so it is not verified.
    setPoolDegraded(fleet, "prod-east-422", "worker", true);
    const approved = await decide(approveRoute, ack.id, alice, "AMI ids checked in the AWS console");
    expect(approved.status).toBe(200);
    const view = await approved.json();
    expect(view).toMatchObject({ id: ack.id, status: "applied", decidedBy: "alice", verifiedAt: null });
    expect(view.result).toBe(
      "Written to MachineConfiguration cluster spec.bootImageSkewEnforcement (Manual, 9.6.20250701-0); the MCO mirrored it into status.bootImageSkewEnforcementStatus, " +
        "but machine-config reports Upgradeable=False (DegradedPool), which hides any boot-image block; checked again once the pool is healthy.",
    );
    expect(view.result).not.toMatch(/no boot-image block|Upgradeable=True/);

    // Still hidden an hour later: the follower keeps checking instead of calling it unconfirmed.
    await followAcknowledgements(new Date(Date.now() + 2 * 3_600_000));
    const [later] = (await (await listRoute(request("/api/v1/acknowledgements?status=applied", { cookie: tom }))).json()).acknowledgements;
    expect(later).toMatchObject({ id: ack.id, verifiedAt: null, result: view.result });

    // The pool is fixed: the follower sees what Upgradeable says for boot images and verifies.
    setPoolDegraded(fleet, "prod-east-422", "worker", false);
    let verified: { verifiedAt: string | null; result: string } | undefined;
    for (let i = 0; i < 40 && !verified?.verifiedAt; i++) {
      await new Promise((r) => setTimeout(r, 100));
      await followAcknowledgements();
      [verified] = (await (await listRoute(request("/api/v1/acknowledgements?status=applied", { cookie: tom }))).json()).acknowledgements;
    }
    expect(verified!.verifiedAt).not.toBeNull();
    expect(verified!.result).toBe(
      "Written to MachineConfiguration cluster spec.bootImageSkewEnforcement (Manual, 9.6.20250701-0). " +
        "The MCO mirrored it into status.bootImageSkewEnforcementStatus and machine-config reports no boot-image block (Upgradeable=True).",
    );

    const again = await decide(approveRoute, ack.id, alice);
    expect(again.status).toBe(409);
    expect((await again.json()).error).toBe("This request is no longer pending: it is applied");
  });
});
