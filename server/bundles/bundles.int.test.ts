import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { manifestDigest } from "../domain/bundleManifest";
import { KINDS } from "../kube/kinds";
import { listAudit } from "../store/audit";
import { getDb } from "../store/db";
import { listApplications } from "../store/bundles";
import { applyBundle } from "./apply";
import { followApplications } from "./follower";
import { precheck } from "./precheck";
import { applicationProgress } from "./progress";
import { startUpgrade } from "./startUpgrade";
import { unpin } from "./unpin";
import { BundleRefusedError, listBundlesWithManifests, listVettedBundles, uploadBundle, vetBundle } from "./bundles";
import { bundleEndpoints } from "./contract";
import {
  admin,
  advance,
  applyConfirmed,
  approver,
  bytesOf,
  client,
  digestOf,
  manifest,
  preloaded,
  setNodeCondition,
  setNodeDisk,
  setsOn,
  tech,
  setUpBundleTestbed,
  vettedUpload,
  warningsNow,
} from "./testing";

/**
 * Bundles end to end against real Postgres and the simulator over HTTPS: vetting and uploading, then applying a bundle to prod-east step by step.
 */
setUpBundleTestbed();

/** What the endpoint would send, as it arrives (JSON drops undefined), parsed against its contract: throws naming the first difference. */
const sent = <S extends z.ZodType>(schema: S, value: unknown) => schema.parse(JSON.parse(JSON.stringify(value)));

describe("vetting and uploading a bundle", () => {
  it("refuses an unvetted manifest, showing its digest, and audits the refusal", async () => {
    const bytes = bytesOf(manifest("4.19.11"));
    const refused = await uploadBundle(bytes, tech).catch((e) => e);
    expect(refused).toBeInstanceOf(BundleRefusedError);
    expect(refused.status).toBe(422);
    expect(refused.message).toContain(`sha256:${manifestDigest(bytes)} has not been vetted`);
    expect(refused.extra).toMatchObject({ digest: `sha256:${manifestDigest(bytes)}` });
    const [event] = await listAudit({ action: "bundle.upload" });
    expect(event).toMatchObject({ actor: "tom", role: "technician", outcome: "denied" });
    expect(await getDb().bundle.count()).toBe(0);
  });

  it("says exactly what is wrong with a vetted manifest that does not validate", async () => {
    const bad = manifest("4.19.11");
    bad.images[1]!.name = "quay.io/openshift-release-dev/ocp-v4.0-art-dev:4.19.11";
    (bad.images[2] as { sizeBytes: number }).sizeBytes = -1;
    const bytes = bytesOf(bad);
    await vetBundle({ digest: `sha256:${manifestDigest(bytes).toUpperCase()}`, note: "vetted by mistake" }, approver);
    const refused = await uploadBundle(bytes, tech).catch((e) => e);
    expect(refused).toBeInstanceOf(BundleRefusedError);
    expect(refused.problems).toEqual([
      'images[1].name: "quay.io/openshift-release-dev/ocp-v4.0-art-dev:4.19.11" names the tag "4.19.11"; a bundle pins images by digest (…@sha256:<64 hex>)',
      "images[2].sizeBytes: must be more than 0",
    ]);
  });

  it("a vetted manifest without the release image in images[] is refused, saying to rebuild and vet it again", async () => {
    const old = manifest("4.19.9");
    old.images = old.images.slice(1); // made before images[] had to list the release image
    const bytes = bytesOf(old);
    await vetBundle({ digest: manifestDigest(bytes), note: "vetted before the release image had to be listed" }, approver);
    const refused = await uploadBundle(bytes, tech).catch((e) => e);
    expect(refused).toBeInstanceOf(BundleRefusedError);
    expect(refused.message).toMatch(/^The bundle was refused: images: does not list the release image \(release\.image\)\./);
    expect(refused.message).toMatch(
      /the bundle must be rebuilt with the release image listed in images\[\], with its size, and the new manifest vetted again\.$/,
    );
    expect(refused.message).not.toMatch(/has not been vetted/);
  });

  it("vets a digest once, and accepts the vetted manifest", async () => {
    const m = manifest("4.19.11");
    const uploaded = await vettedUpload(m);
    expect(uploaded).toMatchObject({ releaseVersion: "4.19.11", imageCount: 3, totalBytes: 6 * 1024 ** 3, uploadedBy: "tom" });
    sent(bundleEndpoints.upload.answer, { bundle: uploaded });
    sent(bundleEndpoints.list.answer, { bundles: await listBundlesWithManifests() });
    sent(bundleEndpoints.vetted.answer, { vetted: await listVettedBundles() });
    await expect(vetBundle({ digest: uploaded.digest, note: "again" }, approver)).rejects.toMatchObject({ status: 409 });
    await expect(vetBundle({ digest: "abc", note: "short" }, approver)).rejects.toMatchObject({ status: 400 });
  });
});

describe("applying a bundle to prod-east", () => {
  const m = manifest("4.19.11");
  const digest = manifestDigest(bytesOf(m));

  it("prechecks: disk space as the MCO judges it, pods that always pull, sets already pinned", async () => {
    const result = await precheck(digest, "prod-east");
    sent(bundleEndpoints.precheck.answer, result);
    const byId = (id: string, pool: string | null = null) => result.checks.find((c) => c.id === id && c.pool === pool)!;
    expect(byId("disk-space", "worker")).toMatchObject({ status: "pass" });
    expect(byId("always-pull-pods")).toMatchObject({
      status: "warn",
      items: ["openshift-marketplace/redhat-operators-7x9kq", "payments/payments-worker-5b8c7d-m4n2p"],
    });
    expect(byId("existing-pinned-image-sets")).toMatchObject({
      status: "warn",
      items: ["master-ocp-4.19.11-prefetch", "worker-prefetch-app-images"],
    });
    expect(result).toMatchObject({ canApply: true, needsConfirmation: true });

    // A node whose kubelet reports DiskPressure gets no pinned images from the MCO: its pool fails the check.
    setNodeCondition("prod-east", "ip-10-0-33-150.ec2.internal", "DiskPressure", "True");
    try {
      const pressed = await precheck(digest, "prod-east");
      expect(pressed.canApply).toBe(false);
      expect(pressed.checks.find((c) => c.id === "disk-space" && c.pool === "infra")).toMatchObject({
        status: "fail",
        items: ["ip-10-0-33-150.ec2.internal"],
        detail: expect.stringMatching(
          /ip-10-0-33-150\.ec2\.internal reports DiskPressure=True: the MCO pulls nothing onto a node whose DiskPressure is not False/,
        ),
      });
    } finally {
      setNodeCondition("prod-east", "ip-10-0-33-150.ec2.internal", "DiskPressure", "False");
    }

    // A bundle too big for the nodes' disks fails the check with the figures.
    const huge = await vettedUpload(manifest("4.19.12", 2, 30 * 1024 ** 3));
    const tooBig = await precheck(huge.digest, "prod-east");
    expect(tooBig.canApply).toBe(false);
    expect(tooBig.checks.find((c) => c.id === "disk-space" && c.pool === "worker")).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(
        /plus 16 GiB of allocatable ephemeral storage.* ip-10-0-77-201\.ec2\.internal has 106\.5 GiB and needs 136\.0 GiB/,
      ),
    });
    await expect(applyConfirmed(huge.digest, "prod-east", tech)).rejects.toMatchObject({
      status: 409,
    });
    expect(await listApplications()).toEqual([]);
  });

  it("needs each warning confirmed by its key, and refuses one that appeared after the prechecks were read", async () => {
    await expect(applyBundle({ digest, cluster: "prod-east", confirmedWarnings: [] }, tech)).rejects.toMatchObject({
      status: 409,
      extra: { needsConfirmation: true },
    });
    const read = await warningsNow(digest, "prod-east");
    // Pods that always pull, other sets pinned, and the worker whose other set fails (the MCO's sync stops there).
    expect(read).toHaveLength(3);
    expect(read.some((k) => k.startsWith("pinned-sync-failing/worker/"))).toBe(true);
    // Someone pins another set on the cluster between the technician's reading and the apply.
    await client("prod-east").create(KINDS.pinnedImageSet, {
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "PinnedImageSet",
      metadata: { name: "late-arrival", labels: { "machineconfiguration.openshift.io/role": "worker" } },
      spec: { pinnedImages: [{ name: `quay.io/example/late@sha256:${digestOf("9")}` }] },
    });
    try {
      const refused = await applyBundle({ digest, cluster: "prod-east", confirmedWarnings: read }, tech).catch((e) => e);
      expect(refused).toMatchObject({
        status: 409,
        message: expect.stringMatching(
          /changed since you checked it\. Read and confirm this new warning: 3 PinnedImageSets are already on the cluster/,
        ),
        extra: { needsConfirmation: true },
      });
      const [fresh] = refused.extra.unconfirmed as string[];
      expect(read).not.toContain(fresh);
      expect(refused.extra.checks.find((c: { key: string }) => c.key === fresh)).toMatchObject({
        id: "existing-pinned-image-sets",
        items: expect.arrayContaining(["late-arrival"]),
      });
      expect(await listApplications()).toEqual([]);
    } finally {
      await client("prod-east").delete(KINDS.pinnedImageSet, "late-arrival");
    }
  });

  it("then pins one set per pool, labelled for the pool; applying twice changes nothing", async () => {
    const { application, created } = await applyConfirmed(digest, "prod-east", tech);
    expect(created).toBe(true);
    sent(bundleEndpoints.apply.answer, { application });
    sent(bundleEndpoints.applications.answer, { applications: await listApplications() });
    expect(application).toMatchObject({ state: "preloading", cluster: "prod-east", createdBy: "tom", lastError: null });
    expect(application.pools.map((p) => p.pool).sort()).toEqual(["infra", "master", "worker"]);
    const ours = (await setsOn("prod-east")).filter((s) => s.labels?.["fleetskew.io/release"] === "4.19.11");
    expect(ours.map((s) => [s.name, s.labels!["machineconfiguration.openshift.io/role"]]).sort()).toEqual(
      application.pools.map((p) => [p.set, p.pool]).sort(),
    );
    const writes = await listAudit({ action: "cluster.write", target: "prod-east" });
    expect(writes).toHaveLength(3);
    expect(writes.every((w) => w.outcome === "success" && w.actor === "tom")).toBe(true);

    const again = await applyConfirmed(digest, "prod-east", tech);
    expect(again).toEqual({ application: expect.objectContaining({ id: application.id }), created: false });
    expect(await listAudit({ action: "cluster.write", target: "prod-east" })).toHaveLength(3);
  });

  it("follows every node, explains an injected disk failure, and blocks the upgrade until it is fixed", async () => {
    const [application] = await listApplications();
    // The disk shrinks before the MCO's first sync: checkNodeAllocatableStorage refuses, and the work queue retries.
    setNodeDisk("prod-east", "ip-10-0-33-150.ec2.internal", "20Gi");
    advance(1);
    advance(60);
    let progress = await applicationProgress(application!.id);
    expect(progress.source).toBe("live");
    sent(bundleEndpoints.application.answer, progress);
    const failed = progress.nodes.find((n) => n.node === "ip-10-0-33-150.ec2.internal")!;
    expect(failed).toMatchObject({
      state: "failed",
      label: "failed: not enough disk",
      error: "storage available is less than minimum required",
    });
    expect(failed.remedy).toMatch(
      /needs up to 28\.0 GiB of allocatable ephemeral storage .* reports 20\.0 GiB.* grow the node's disk or use a smaller bundle/,
    );
    expect(progress.summary).toMatchObject({ failed: 1, allDone: false });
    expect(progress.readiness?.checks.find((c) => c.id === "pinned-images")?.status).toBe("fail");
    // A node without the images is not a readiness failure: nobody can start past it, not even an admin with a reason.
    expect(progress.overridable).toBe(false);
    await expect(startUpgrade(application!.id, {}, tech)).rejects.toMatchObject({
      status: 409,
      message: expect.stringMatching(/Resolve these first/),
    });
    await expect(
      startUpgrade(application!.id, { overrideReason: "the site closes tonight, the node can pull later" }, admin),
    ).rejects.toMatchObject({
      status: 409,
      message: expect.stringMatching(/1 of 3 nodes do not have the images yet\..* Only failing readiness checks can be overridden/),
    });

    setNodeDisk("prod-east", "ip-10-0-33-150.ec2.internal", "114345831029");
    advance(1);
    advance(60);
    progress = await applicationProgress(application!.id);
    expect(progress.nodes.every((n) => n.state === "done")).toBe(true);
    expect(progress.summary.allDone).toBe(true);
    expect(progress.blockers).toEqual([]);
  });

  it("starts the upgrade to the bundle's release digest, notices when it is done, and unpins the previous bundle after the next", async () => {
    const [application] = await listApplications();
    const started = await startUpgrade(application!.id, {}, tech);
    expect(started).toMatchObject({ state: "upgrading", upgradeStartedBy: "tom", overrideReason: null });
    sent(bundleEndpoints.startUpgrade.answer, { application: started });
    const cv = (await client("prod-east").get(KINDS.clusterVersion, "version")) as { spec: { desiredUpdate: unknown } };
    expect(cv.spec.desiredUpdate).toMatchObject({ version: "4.19.11", image: m.release.image });
    await expect(startUpgrade(application!.id, {}, tech)).rejects.toMatchObject({ status: 409 });

    advance(1);
    advance(120);
    await followApplications();
    expect((await listApplications())[0]).toMatchObject({ id: application!.id, state: "upgraded" });
    // Every state it moved through is in the audit log; the one the console reached by itself as its own event.
    const noticed = await listAudit({ action: "bundle.application.state", target: "prod-east" });
    expect(noticed.at(-1)).toMatchObject({ actor: null, details: { application: application!.id, from: "applying", to: "preloading" } });
    expect(await listAudit({ action: "bundle.upgrade.complete", target: "prod-east" })).toHaveLength(1);

    // The next bundle: once its upgrade completes, the first one's sets are removed.
    const next = await vettedUpload(manifest("4.19.13"));
    const second = (await applyConfirmed(next.digest, "prod-east", tech)).application;
    advance(1);
    advance(60);
    await startUpgrade(second.id, {}, tech);
    advance(1);
    advance(120);
    await followApplications();
    const states = Object.fromEntries((await listApplications()).map((a) => [a.releaseVersion, a.state]));
    expect(states).toEqual({ "4.19.11": "unpinned", "4.19.13": "upgraded" });
    const left = (await setsOn("prod-east")).map((s) => s.labels?.["fleetskew.io/release"]).filter(Boolean);
    expect(new Set(left)).toEqual(new Set(["4.19.13"]));
    const unpinned = await unpin(second.id, tech);
    expect(unpinned.state).toBe("unpinned");
    sent(bundleEndpoints.unpin.answer, { application: unpinned });
    expect((await setsOn("prod-east")).filter((s) => s.labels?.["fleetskew.io/release"])).toEqual([]);
  });

  it("a second upgrade cannot start while another bundle's upgrade is running", async () => {
    const first = await vettedUpload(manifest("4.19.14"));
    const second = await vettedUpload(manifest("4.19.15"));
    const a = (await applyConfirmed(first.digest, "prod-east", tech)).application;
    const b = (await applyConfirmed(second.digest, "prod-east", tech)).application;
    advance(1);
    advance(60);
    await startUpgrade(a.id, {}, tech);
    expect((await applicationProgress(b.id)).blockers).toContain(
      "The upgrade to 4.19.14 (another bundle) was started by tom and has not completed.",
    );
    advance(1); // the CVO takes the new target
    expect((await applicationProgress(b.id)).blockers).toEqual(
      expect.arrayContaining([expect.stringMatching(/^The cluster is already updating to 4\.19\.14;/)]),
    );
    await expect(startUpgrade(b.id, {}, tech)).rejects.toMatchObject({ status: 409 });
    // Neither blocker is a readiness failure: an admin's reason does not override them.
    await expect(startUpgrade(b.id, { overrideReason: "the change window ends in an hour" }, admin)).rejects.toMatchObject({
      status: 409,
      message: expect.stringMatching(/Only failing readiness checks can be overridden/),
      extra: { overridable: false },
    });
    expect(
      ((await client("prod-east").get(KINDS.clusterVersion, "version")) as { spec: { desiredUpdate: { version: string } } }).spec
        .desiredUpdate.version,
    ).toBe("4.19.14");
    advance(120);
    await followApplications();
    const states = Object.fromEntries((await listApplications()).map((x) => [x.releaseVersion, x.state]));
    expect(states).toMatchObject({ "4.19.14": "upgraded", "4.19.15": "preloading" });
    // Gave up on the second: unpinned from pre-loading, and the follower leaves it unpinned.
    expect((await unpin(b.id, tech)).state).toBe("unpinned");
    expect((await unpin(a.id, tech)).state).toBe("unpinned");
    await followApplications();
    expect((await setsOn("prod-east")).filter((s) => s.labels?.["fleetskew.io/release"])).toEqual([]);
  });

  it("applying an unpinned bundle again starts it over and pins its sets again", async () => {
    const unpinned = (await listApplications()).find((a) => a.releaseVersion === "4.19.15")!;
    expect(unpinned.state).toBe("unpinned");
    const again = await applyConfirmed(unpinned.bundleDigest, "prod-east", admin);
    expect(again.created).toBe(true);
    expect(again.application).toMatchObject({
      id: unpinned.id,
      state: "preloading",
      createdBy: "ada",
      unpinnedAt: null,
      upgradeStartedBy: null,
    });
    const ours = (await setsOn("prod-east")).filter((s) => s.labels?.["fleetskew.io/release"] === "4.19.15");
    expect(ours.map((s) => s.name).sort()).toEqual(unpinned.pools.map((p) => p.set).sort());
    const [event] = await listAudit({ action: "bundle.apply", target: "prod-east" });
    expect(event).toMatchObject({ actor: "ada", summary: expect.stringMatching(/ again$/) });
    await unpin(unpinned.id, admin);
  });

  it("an upgrade the cluster took but Fleetskew never recorded (stopped between the two) is found and followed", async () => {
    const { bundle, application } = await preloaded("4.19.16", "prod-east");
    expect((await applicationProgress(application.id)).blockers).toEqual([]);
    // The write to the cluster happened; the state change did not.
    await client("prod-east").mergePatch(KINDS.clusterVersion, "version", {
      spec: { desiredUpdate: { version: "4.19.16", image: bundle.releaseImage, force: false } },
    });
    advance(1);
    const stuck = await applicationProgress(application.id);
    expect(stuck.application.state).toBe("preloading");
    expect(stuck.blockers).toEqual(expect.arrayContaining([expect.stringMatching(/^The cluster is already updating to 4\.19\.16;/)]));
    await expect(startUpgrade(application.id, { overrideReason: "it is already updating, let it be" }, admin)).rejects.toMatchObject({
      status: 409,
      extra: { overridable: false },
    });

    await followApplications();
    const found = (await listApplications()).find((a) => a.id === application.id)!;
    expect(found).toMatchObject({ state: "upgrading", upgradeStartedBy: null, upgradeStartedAt: expect.any(String) });
    const [event] = await listAudit({ action: "bundle.upgrade.start", target: "prod-east" });
    expect(event).toMatchObject({
      actor: null,
      summary: expect.stringMatching(/found prod-east already asking for 4\.19\.16 .*following the upgrade/),
      details: expect.objectContaining({ application: application.id, settled: true }),
    });
    advance(120);
    await followApplications();
    expect((await listApplications()).find((a) => a.id === application.id)!.state).toBe("upgraded");
    await unpin(application.id, tech);
  });
});
