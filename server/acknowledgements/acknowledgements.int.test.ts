import { FLEET_WIDE } from "../domain/grants";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "../auth/actor";
import { testActor } from "../testing/actors";
import { Collector } from "../collector/collector";
import { clusterTimeline } from "../fleet/fleet";
import { ClusterClient } from "../kube/client";
import { KINDS } from "../kube/kinds";
import { setBootImageSkewEnforcement } from "../kube/writers";
import type { Fleet } from "../simulator/cluster";
import type { SimulatorServer } from "../simulator/http";
import { Reconciler, scaledClock } from "../simulator/reconciler";
import { setPoolDegraded, startTestSimulator } from "../simulator/testing";
import { changeAcknowledgement, expireAcknowledgements, findAcknowledgement } from "../store/acknowledgements";
import { listAudit } from "../store/audit";
import { getDb } from "../store/db";
import { makeAllDue } from "../store/sweeps";
import { useMigratedDatabase } from "../testing/database";
import { registerSimulatedClusters, simulatorCredentials, testCollectorOptions } from "../testing/fleet";
import {
  acknowledgementCandidates,
  approveAcknowledgement,
  followAcknowledgements,
  listAcknowledgementViews,
  rejectAcknowledgement,
  requestAcknowledgement,
} from "./acknowledgements";
import { acknowledgementEndpoints } from "./contract";

process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();

let fleet: Fleet;
let sim: SimulatorServer;
let reconciler: Reconciler;
let tech: Actor, approver: Actor, otherApprover: Actor;

const sweep = async () => {
  await makeAllDue();
  await new Collector(testCollectorOptions("test")).runOnce();
};
const client = (name: string) => new ClusterClient(simulatorCredentials(sim, fleet.get(name)!));
const upgradeableOf = async (name: string) =>
  (
    (await client(name).get(KINDS.clusterOperator, "machine-config")) as {
      status: { conditions: { type: string; status: string; reason?: string }[] };
    }
  ).status.conditions.find((c) => c.type === "Upgradeable");
const request = (over: Record<string, unknown> = {}) =>
  requestAcknowledgement(
    {
      cluster: "prod-east-422",
      mode: "RHCOSVersion",
      rhcosVersion: "9.6.20250701-0",
      evidence: "All three worker MachineSets were moved to ami-0a1b2c (RHCOS 9.6.20250701-0) on 2026-11-18; see change CHG-1234.",
      machineSets: ["prod-east-7xk2p-worker-us-east-1a"],
      ...over,
    } as never,
    tech,
  );

beforeAll(async () => {
  ({ fleet, sim } = await startTestSimulator());
  reconciler = new Reconciler(fleet, scaledClock(1));
  reconciler.start(50);
  await registerSimulatedClusters(sim, fleet.list());
  tech = await testActor("tom", "technician");
  approver = await testActor("alice", "approver");
  otherApprover = await testActor("bob", "approver");
  await sweep();
});
afterAll(() => {
  reconciler.stop();
  return sim.close();
});

describe("which clusters need an acknowledgement", () => {
  it("lists prod-east-422 (Manual, install version below the limit) and prod-east, whose 4.19 API cannot take one yet", async () => {
    const candidates = await acknowledgementCandidates(null);
    // As GET /api/v1/acknowledgements/candidates sends them (JSON drops undefined), they match its contract.
    acknowledgementEndpoints.candidates.answer.parse(JSON.parse(JSON.stringify({ clusters: candidates })));
    acknowledgementEndpoints.candidates.answer.parse(JSON.parse(JSON.stringify({ clusters: await acknowledgementCandidates("4.23.0") })));
    const byName = new Map(candidates.map((c) => [c.cluster, c]));
    expect(byName.get("prod-east-422")).toMatchObject({ release: "4.22.3", reason: "below-limit", served: true, pending: null });
    expect(byName.get("prod-east")).toMatchObject({ release: "4.22.0", reason: "below-limit", served: false });
  });

  it("refuses a request for a cluster whose API has no bootImageSkewEnforcement", async () => {
    await expect(request({ cluster: "prod-east" })).rejects.toMatchObject({
      status: 409,
      message: expect.stringMatching(/served by default from 4\.22/),
    });
    await expect(request({ machineSets: ["no-such-machineset"] })).rejects.toMatchObject({ status: 400 });
  });
});

describe("a request, decided by someone else", () => {
  it("the requester cannot approve it; an approver can, and the cluster's Upgradeable turns true", async () => {
    expect(await upgradeableOf("prod-east-422")).toMatchObject({ status: "False", reason: "ClusterBootImageSkewError" });
    const ack = await request();
    expect(ack).toMatchObject({ status: "pending", requestedBy: "tom", baseline: null });
    await expect(request()).rejects.toMatchObject({ status: 409 });

    // The requester holds the technician role here; the rule holds for an approver who requested too (below).
    await expect(approveAcknowledgement(ack.id, "", { ...tech, user: { ...tech.user, role: "approver" } })).rejects.toMatchObject({
      status: 403,
    });
    const [view] = await listAcknowledgementViews(["pending"]);
    expect(view!.prediction).toMatchObject({ upgradeable: true, release: "4.22.3" });
    acknowledgementEndpoints.list.answer.parse(JSON.parse(JSON.stringify({ acknowledgements: [view] })));

    const approved = await approveAcknowledgement(ack.id, "checked the AMI ids in the console", approver);
    expect(approved).toMatchObject({ status: "applied", decidedBy: "alice" });
    expect(approved.verifiedAt).not.toBeNull();
    expect(approved.result).toMatch(/mirrored it into status\.bootImageSkewEnforcementStatus .* no boot-image block \(Upgradeable=True\)/);
    const mc = (await client("prod-east-422").get(KINDS.machineConfiguration, "cluster")) as {
      spec: { bootImageSkewEnforcement: unknown };
    };
    expect(mc.spec.bootImageSkewEnforcement).toEqual({ mode: "Manual", manual: { mode: "RHCOSVersion", rhcosVersion: "9.6.20250701-0" } });
    expect((await upgradeableOf("prod-east-422"))?.status).not.toBe("False");

    // Decided once: a second decision is a 409.
    await expect(approveAcknowledgement(ack.id, "", otherApprover)).rejects.toMatchObject({ status: 409 });
    await expect(rejectAcknowledgement(ack.id, "too late", otherApprover)).rejects.toMatchObject({ status: 409 });

    // The cluster's timeline marks it.
    const timeline = await clusterTimeline("prod-east-422", FLEET_WIDE);
    expect(timeline.events.filter((e) => e.kind === "acknowledgement").map((e) => e.title)).toEqual([
      "Boot image acknowledged: 9.6.20250701-0 (approved by alice)",
    ]);

    const actions = (await listAudit({ target: "prod-east-422" })).map((e) => [e.action, e.actor, e.outcome]).reverse();
    expect(actions).toEqual([
      ["cluster.register", "test", "success"],
      ["acknowledgement.request", "tom", "success"],
      ["acknowledgement.approve", "alice", "success"],
      ["cluster.write", "alice", "success"],
      // What the console itself recorded: the value written, then the MCO's confirmation.
      ["acknowledgement.status", null, "success"],
      ["acknowledgement.verify", null, "success"],
    ]);
  });

  it("a value changed on the cluster since the request is re-read and refused, never overwritten", async () => {
    const ack = await request({ mode: "OCPVersion", ocpVersion: "4.19.0", rhcosVersion: undefined });
    // Someone sets None directly on the cluster after the request was made.
    await setBootImageSkewEnforcement(client("prod-east-422"), { mode: "None" });
    const decided = await approveAcknowledgement(ack.id, "", approver);
    expect(decided.status).toBe("failed");
    expect(decided.result).toMatch(/changed on the cluster since the request was made: it is now None \(it was Manual, 9\.6\.20250701-0\)/);
    const mc = (await client("prod-east-422").get(KINDS.machineConfiguration, "cluster")) as {
      spec: { bootImageSkewEnforcement: { mode: string } };
    };
    expect(mc.spec.bootImageSkewEnforcement.mode).toBe("None");
    const [write] = await listAudit({ action: "cluster.write", target: "prod-east-422" });
    expect(write).toMatchObject({ outcome: "failure", actor: "alice" });
  });

  it("a 409 during the patch is read again and re-checked; a cluster that keeps changing is not overwritten", async () => {
    const cluster = fleet.get("prod-east-422")!;
    // Another writer changes MachineConfiguration between Fleetskew's read and its patch, once.
    fleet.setFaults("prod-east-422", { concurrentWriteEvery: 2 });
    cluster.conditionalPatchCount = 1;
    try {
      const ack = await request({ mode: "OCPVersion", ocpVersion: "4.13.0", rhcosVersion: undefined });
      const applied = await approveAcknowledgement(ack.id, "", approver);
      expect(applied.status).toBe("applied");
      const mc = (await client("prod-east-422").get(KINDS.machineConfiguration, "cluster")) as {
        metadata: { annotations: Record<string, string> };
        spec: { bootImageSkewEnforcement: unknown };
      };
      expect(mc.metadata.annotations["simulator.fleetskew.io/concurrent-write"]).toBe("2");
      expect(mc.spec.bootImageSkewEnforcement).toEqual({ mode: "Manual", manual: { mode: "OCPVersion", ocpVersion: "4.13.0" } });

      // Every attempt loses the race: after three, the request fails with the cluster's answer.
      fleet.setFaults("prod-east-422", { concurrentWriteEvery: 1 });
      const next = await request({ mode: "RHCOSVersion" });
      const failed = await approveAcknowledgement(next.id, "", approver);
      expect(failed.status).toBe("failed");
      expect(failed.result).toMatch(/kept changing while Fleetskew tried to update it \(3 attempts\)/);
    } finally {
      fleet.setFaults("prod-east-422", undefined);
    }
  });

  it("a rejection needs a comment; an undecided request expires after 7 days", async () => {
    const ack = await request({ mode: "None", rhcosVersion: undefined });
    await expect(rejectAcknowledgement(ack.id, "", approver)).rejects.toMatchObject({ status: 400 });
    expect(await rejectAcknowledgement(ack.id, "opting out needs a change ticket", approver)).toMatchObject({
      status: "rejected",
      decidedBy: "alice",
    });

    const waiting = await request();
    expect(await expireAcknowledgements(new Date())).toEqual([]);
    const expired = await expireAcknowledgements(new Date(Date.now() + 7 * 86_400_000 + 1000));
    expect(expired.map((a) => [a.id, a.status])).toEqual([[waiting.id, "expired"]]);
    await expect(approveAcknowledgement(waiting.id, "", approver)).rejects.toMatchObject({ status: 409 });
  });
});

describe("an approval whose process stopped before the cluster answered", () => {
  /** Leaves a request as an approval leaves it between the decision and the write. */
  const interrupted = async (over: Record<string, unknown>) => {
    const ack = await request(over);
    await changeAcknowledgement(ack.id, () => ({ change: { status: "applying", decidedBy: "alice", decidedAt: new Date() } }));
    return ack;
  };
  const statusOf = async (id: string) => (await findAcknowledgement(id))!;

  it("counts as applied when the cluster has the value, and failed (saying what it has) when not", async () => {
    const written = await interrupted({});
    await setBootImageSkewEnforcement(client("prod-east-422"), {
      mode: "Manual",
      manual: { mode: "RHCOSVersion", rhcosVersion: "9.6.20250701-0" },
    });
    await followAcknowledgements(new Date());
    expect((await statusOf(written.id)).status).toBe("applying"); // too soon to call it interrupted
    await followAcknowledgements(new Date(Date.now() + 3 * 60_000));
    expect(await statusOf(written.id)).toMatchObject({
      status: "applied",
      result: expect.stringMatching(/^Found in MachineConfiguration/),
    });

    const lost = await interrupted({ mode: "None", rhcosVersion: undefined });
    await followAcknowledgements(new Date(Date.now() + 3 * 60_000));
    expect(await statusOf(lost.id)).toMatchObject({
      status: "failed",
      result: expect.stringMatching(/stopped before the cluster answered; the cluster has Manual, 9\.6\.20250701-0\./),
    });
  });
});

describe("an acknowledgement whose answer a degraded pool hides", () => {
  it("a value still below the limit is not left waiting without a word: it says the pool hides the answer, then verifies the block", async () => {
    const ack = await request({ mode: "OCPVersion", ocpVersion: "4.12.0", rhcosVersion: undefined });
    const [view] = await listAcknowledgementViews(["pending"]);
    expect(view!.prediction).toMatchObject({ upgradeable: false });

    setPoolDegraded(fleet, "prod-east-422", "worker", true);
    try {
      const approved = await approveAcknowledgement(ack.id, "", approver);
      expect(approved).toMatchObject({ status: "applied", verifiedAt: null });
      expect(approved.result).toMatch(
        /; the MCO mirrored it into status\.bootImageSkewEnforcementStatus, but machine-config reports Upgradeable=False \(DegradedPool\), which hides any boot-image block; checked again once the pool is healthy\.$/,
      );
      // An hour on, still hidden: not called unconfirmed, nor "not mirrored".
      await followAcknowledgements(new Date(Date.now() + 2 * 3_600_000));
      const later = (await findAcknowledgement(ack.id))!;
      expect(later).toMatchObject({ verifiedAt: null, result: approved.result });
    } finally {
      setPoolDegraded(fleet, "prod-east-422", "worker", false);
    }

    // The sweep the write asked for has run meanwhile (next one an hour away).
    const schedule = { where: { cluster: { name: "prod-east-422" } } };
    await getDb().sweepSchedule.updateMany({ ...schedule, data: { nextSweepAt: new Date(Date.now() + 3_600_000) } });

    // The pool is healthy: the boot-image block shows, as predicted, and the request is verified with it.
    let now = (await findAcknowledgement(ack.id))!;
    for (let i = 0; i < 40 && !now.verifiedAt; i++) {
      await new Promise((r) => setTimeout(r, 100));
      await followAcknowledgements();
      now = (await findAcknowledgement(ack.id))!;
    }
    expect(now.verifiedAt).not.toBeNull();
    expect(now.result).toBe(
      "Written to MachineConfiguration cluster spec.bootImageSkewEnforcement (Manual, 4.12.0). " +
        "The MCO mirrored it into status.bootImageSkewEnforcementStatus and machine-config reports Upgradeable=False (ClusterBootImageSkewError).",
    );
    // What was verified reaches the fleet at the next sweep, which the verification made due now.
    expect((await getDb().sweepSchedule.findFirstOrThrow(schedule)).nextSweepAt.getTime()).toBeLessThanOrEqual(Date.now());
  });
});

describe("the audit log", () => {
  it("refuses UPDATE and DELETE at the database", async () => {
    const before = await getDb().auditEvent.count();
    await expect(getDb().$executeRawUnsafe(`UPDATE "AuditEvent" SET "actor" = 'mallory'`)).rejects.toThrow(/append-only/);
    await expect(getDb().$executeRawUnsafe(`DELETE FROM "AuditEvent"`)).rejects.toThrow(/append-only/);
    await expect(getDb().$executeRawUnsafe(`TRUNCATE "AuditEvent"`)).rejects.toThrow(/append-only/);
    expect(await getDb().auditEvent.count()).toBe(before);
    expect(await getDb().auditEvent.count({ where: { actor: "mallory" } })).toBe(0);
  });
});
