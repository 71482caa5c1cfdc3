import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { UserFacingError } from "../errors";
import { KINDS } from "../kube/kinds";
import type { Faults } from "../simulator/cluster";
import { listAudit } from "../store/audit";
import { findClusterSummary } from "../store/clusters";
import { insertApplication, listApplications } from "../store/bundles";
import { followApplications } from "./follower";
import { precheck } from "./precheck";
import { applicationProgress } from "./progress";
import { startUpgrade } from "./startUpgrade";
import { unpin } from "./unpin";
import {
  admin,
  advance,
  applyConfirmed,
  client,
  fleet,
  manifest,
  preloaded,
  setsOn,
  sim,
  tech,
  setUpBundleTestbed,
  vettedUpload,
} from "./testing";

/**
 * Bundles end to end against real Postgres and the simulator over HTTPS: interrupted starts and applications, refused writes, and overriding readiness.
 */
setUpBundleTestbed();

describe("a start whose write to the cluster fails", () => {
  it("is cleared when the API server refuses it, kept when the answer is lost, and then credited to who started it", async () => {
    const { bundle, application } = await preloaded("4.19.17", "prod-east");
    expect((await applicationProgress(application.id)).blockers).toEqual([]);
    const now = async () => (await listApplications()).find((a) => a.id === application.id)!;
    const desired = async () =>
      ((await client("prod-east").get(KINDS.clusterVersion, "version")) as { spec: { desiredUpdate?: { image?: string } } }).spec
        .desiredUpdate?.image;

    // The fault hits only the PATCH of ClusterVersion, as it reaches the simulator's API server.
    let onPatch: Faults | undefined;
    const arm = (req: IncomingMessage) => {
      if (req.method === "PATCH" && req.url?.includes("/clusterversions/")) fleet.setFaults("prod-east", onPatch);
    };
    sim.server.prependListener("request", arm);
    try {
      // An answer from the API server (403): the cluster did not take it, and nothing says it was started.
      onPatch = { errorEvery: 1, errorStatus: 403 };
      await expect(startUpgrade(application.id, {}, tech)).rejects.toMatchObject({
        status: 502,
        message: expect.stringMatching(/^prod-east refused the upgrade: .*\(HTTP 403\)$/),
      });
      fleet.setFaults("prod-east", undefined);
      expect(await now()).toMatchObject({ state: "preloading", upgradeStartedBy: null, upgradeStartedAt: null });

      // A 503: the cluster may or may not have taken it. The start stays recorded and the answer says it is not confirmed.
      onPatch = { errorEvery: 1, errorStatus: 503 };
      await expect(startUpgrade(application.id, {}, tech)).rejects.toMatchObject({
        status: 503,
        message: expect.stringMatching(
          /^The start of the upgrade to 4\.19\.17 is not confirmed: .*HTTP 503.*this page follows the cluster/,
        ),
        extra: { startConfirmed: false },
      });
      fleet.setFaults("prod-east", undefined);
      expect(await now()).toMatchObject({ state: "preloading", upgradeStartedBy: "tom" });

      // No answer at all (the client's timeout): kept too, now as ada's start.
      onPatch = { timeout: true };
      await expect(startUpgrade(application.id, {}, admin)).rejects.toMatchObject({
        status: 503,
        message: expect.stringMatching(/is not confirmed: no answer from the cluster .* in time/),
      });
      fleet.setFaults("prod-east", undefined);
      expect(await now()).toMatchObject({ state: "preloading", upgradeStartedBy: "ada", upgradeStartedAt: expect.any(String) });
    } finally {
      sim.server.off("request", arm);
      fleet.setFaults("prod-east", undefined);
    }
    expect(await desired()).not.toBe(bundle.releaseImage);

    // The cluster had taken it before the answer was lost: the follower finds it and credits ada, not "outside Fleetskew".
    await client("prod-east").mergePatch(KINDS.clusterVersion, "version", {
      spec: { desiredUpdate: { version: "4.19.17", image: bundle.releaseImage, force: false } },
    });
    await followApplications(Date.now() + 3 * 60_000);
    expect(await now()).toMatchObject({ state: "upgrading", upgradeStartedBy: "ada" });
    const [event] = await listAudit({ action: "bundle.upgrade.start", target: "prod-east" });
    expect(event).toMatchObject({
      actor: null,
      summary: "found the upgrade of prod-east to 4.19.17 that ada started under way on the cluster; following it",
    });
    advance(1);
    advance(120);
    await followApplications();
    expect((await now()).state).toBe("upgraded");
    await unpin(application.id, tech);
  });
});

describe("an application interrupted before its sets were created", () => {
  it("is finished by the background follower, creating each set once", async () => {
    const m = manifest("4.22.4");
    const bundle = await vettedUpload(m);
    const cluster = (await findClusterSummary("prod-east-422"))!;
    const pools = ["master", "worker", "infra"].map((pool) => ({
      pool,
      set: `fleetskew-4-22-4-${bundle.digest.slice(0, 8)}-${pool}`,
      labels: { "machineconfiguration.openshift.io/role": pool },
    }));
    const { application } = await insertApplication(
      { bundleDigest: bundle.digest, clusterId: cluster.id, pools, confirmedWarnings: [], createdBy: "tom" },
      { actor: "tom", role: "technician", ip: null, summary: "applied" },
    );
    expect(application.state).toBe("applying");
    await followApplications();
    await followApplications();
    const after = (await listApplications()).find((a) => a.id === application.id)!;
    expect(after.state).toBe("preloading");
    expect(
      (await setsOn("prod-east-422"))
        .filter((s) => s.labels?.["fleetskew.io/release"] === "4.22.4")
        .map((s) => s.name)
        .sort(),
    ).toEqual(pools.map((p) => p.set).sort());
    // Someone deletes a set on the cluster: it is created again.
    await client("prod-east-422").delete(KINDS.pinnedImageSet, pools[1]!.set);
    await followApplications();
    expect((await setsOn("prod-east-422")).map((s) => s.name)).toContain(pools[1]!.set);
    const writes = (await listAudit({ action: "cluster.write", target: "prod-east-422" })).filter((w) => w.actor === null);
    // Three creations, then one pass that reads two sets there and creates only the missing one.
    expect(writes.map((w) => w.details)).toHaveLength(4);
    expect(writes.filter((w) => /: created$/.test(w.summary))).toHaveLength(4);
  });

  it("a refused write is retried after a pause, not on every pass", async () => {
    const bundle = await vettedUpload(manifest("4.22.6"));
    const cluster = (await findClusterSummary("prod-east-422"))!;
    const pools = [
      {
        pool: "worker",
        set: `fleetskew-4-22-6-${bundle.digest.slice(0, 8)}-worker`,
        labels: { "machineconfiguration.openshift.io/role": "worker" },
      },
    ];
    const { application } = await insertApplication(
      { bundleDigest: bundle.digest, clusterId: cluster.id, pools, confirmedWarnings: [], createdBy: "tom" },
      { actor: "tom", role: "technician", ip: null, summary: "applied" },
    );
    const sim422 = fleet.get("prod-east-422")!;
    sim422.spec.forbidden = [{ verb: "create", resource: "pinnedimagesets", group: "machineconfiguration.openshift.io" }];
    const attempts = async () =>
      (await listAudit({ action: "cluster.write", target: "prod-east-422" })).filter(
        (w) => (w.details as { application?: string }).application === application.id,
      );
    try {
      await followApplications();
      const refused = (await listApplications()).find((a) => a.id === application.id)!;
      expect(refused).toMatchObject({ state: "applying", lastError: expect.stringMatching(/forbidden/) });
      expect(await attempts()).toHaveLength(1);
      await followApplications();
      expect(await attempts()).toHaveLength(1);
    } finally {
      sim422.spec.forbidden = [];
    }
    await followApplications(Date.now() + 6 * 60_000);
    expect((await listApplications()).find((a) => a.id === application.id)).toMatchObject({ state: "preloading", lastError: null });
    expect((await attempts()).map((w) => w.outcome)).toEqual(["success", "failure"]);
  });

  it("a cluster that does not serve PinnedImageSet says so", async () => {
    const bundle = await vettedUpload(manifest("4.16.31"));
    await expect(precheck(bundle.digest, "legacy")).rejects.toSatisfy(
      (e: unknown) => e instanceof UserFacingError && e.status === 422 && /does not serve PinnedImageSet/.test(e.message),
    );
  });
});

describe("starting an upgrade despite failing readiness checks (prod-east-422: its boot images block minor updates)", () => {
  it("only an admin, only with a written reason, and the reason is in the audit event", async () => {
    const bundle = await vettedUpload(manifest("4.23.1"));
    const { application } = await applyConfirmed(bundle.digest, "prod-east-422", tech);
    // While nodes still pull, the readiness failure cannot be overridden: the nodes are not done.
    const pulling = await applicationProgress(application.id);
    expect(pulling.overridable).toBe(false);
    await expect(startUpgrade(application.id, { overrideReason: "boot images are fine, see CHG-9" }, admin)).rejects.toMatchObject({
      status: 409,
      message: expect.stringMatching(/Only failing readiness checks can be overridden/),
    });

    advance(1);
    advance(60);
    const progress = await applicationProgress(application.id);
    expect(progress.summary.allDone).toBe(true);
    expect(progress.blockers.length).toBeGreaterThan(0);
    expect(progress.blockers.every((b) => b.startsWith("Readiness for 4.23.1: "))).toBe(true);
    expect(progress.overridable).toBe(true);
    await expect(startUpgrade(application.id, { overrideReason: "boot images are fine, see CHG-9" }, tech)).rejects.toMatchObject({
      status: 409,
      message: expect.stringMatching(/An admin can start it anyway with a written reason/),
    });
    await expect(startUpgrade(application.id, { overrideReason: "go" }, admin)).rejects.toMatchObject({
      status: 409,
      message: expect.stringMatching(/write why \(at least 10 characters\)/),
    });

    const reason = "boot images were replaced by hand on 2026-11-18, CHG-9";
    const started = await startUpgrade(application.id, { overrideReason: reason }, admin);
    expect(started).toMatchObject({ state: "upgrading", upgradeStartedBy: "ada", overrideReason: reason });
    const cv = (await client("prod-east-422").get(KINDS.clusterVersion, "version")) as { spec: { desiredUpdate: unknown } };
    expect(cv.spec.desiredUpdate).toMatchObject({ version: "4.23.1", image: bundle.releaseImage });
    const [event] = await listAudit({ action: "bundle.upgrade.start", target: "prod-east-422" });
    expect(event).toMatchObject({
      actor: "ada",
      role: "admin",
      summary: expect.stringContaining(`despite ${progress.blockers.length} failing readiness check(s): ${reason}`),
      details: expect.objectContaining({ overrideReason: reason, blockers: progress.blockers }),
    });
  });

  it("nothing overrides another bundle's upgrade that has not completed", async () => {
    const { application } = await preloaded("4.23.2", "prod-east-422");
    const progress = await applicationProgress(application.id);
    expect(progress.blockers).toContain("The upgrade to 4.23.1 (another bundle) was started by ada and has not completed.");
    expect(progress.overridable).toBe(false);
    await expect(startUpgrade(application.id, { overrideReason: "this one is the release we want instead" }, admin)).rejects.toMatchObject({
      status: 409,
      message: expect.stringMatching(/Only failing readiness checks can be overridden/),
      extra: { overridable: false },
    });
    const cv = (await client("prod-east-422").get(KINDS.clusterVersion, "version")) as { spec: { desiredUpdate: { version: string } } };
    expect(cv.spec.desiredUpdate.version).toBe("4.23.1");
    expect((await listApplications()).find((a) => a.id === application.id)).toMatchObject({
      state: "preloading",
      upgradeStartedBy: null,
      overrideReason: null,
    });
  });
});
