import { describe, expect, it } from "vitest";
import {
  overridable,
  releaseCompleted,
  START_INTERRUPTED_AFTER_MS,
  startFoundOnCluster,
  startRefusal,
  unpinReason,
  unpinRefusal,
  upgradeBlockers,
  upgradeStateOf,
  type ApplicationState,
  type UpgradeState,
} from "./bundles";
import { cond, healthyCluster, history as historyOf, versionFacts } from "./testing/snapshots";

const application = (state: ApplicationState, over: { upgradeStartedBy?: string | null; upgradedAt?: string | null } = {}) => ({
  state,
  releaseVersion: "4.19.11",
  upgradeStartedBy: over.upgradeStartedBy ?? null,
  upgradedAt: over.upgradedAt ?? null,
});

describe("an application's state changes", () => {
  it("starts an upgrade only from pre-loading, and says who started one already", () => {
    expect(startRefusal(application("preloading"))).toBeNull();
    expect(startRefusal(application("upgrading", { upgradeStartedBy: "tess" }))).toBe("The upgrade to 4.19.11 was already started by tess");
    expect(startRefusal(application("upgraded"))).toBe("The upgrade to 4.19.11 was already started by someone");
    expect(startRefusal(application("applying"))).toBe("This application is applying; there is nothing to start");
    expect(startRefusal(application("unpinned"))).toBe("This application is unpinned; there is nothing to start");
  });

  it("unpins after the upgrade or to give up a pre-load, never during the upgrade or twice", () => {
    for (const state of ["upgraded", "preloading", "applying", "unpinning"] as const) expect(unpinRefusal(application(state))).toBeNull();
    expect(unpinRefusal(application("upgrading"))).toBe("Cannot unpin while the cluster is upgrading to 4.19.11");
    expect(unpinRefusal(application("unpinned"))).toBe("Already unpinned");
    expect(unpinReason(application("upgraded", { upgradedAt: "2026-11-02T00:00:00Z" }))).toBe("the upgrade is done");
    expect(unpinReason(application("preloading"))).toBe("pre-load given up");
  });
});

describe("the cluster's ClusterVersion", () => {
  const history = [
    { version: "4.19.11", state: "Partial" },
    { version: "4.19.10", state: "Completed" },
  ];

  it("has run a release only with a Completed history entry for it", () => {
    expect(releaseCompleted(history, "4.19.10")).toBe(true);
    expect(releaseCompleted(history, "4.19.11")).toBe(false);
    expect(releaseCompleted(undefined, "4.19.11")).toBe(false);
  });

  describe("asking for the bundle's release image (an upgrade under way)", () => {
    const a = { releaseImage: "quay.io/x@sha256:1", releaseVersion: "4.19.11", upgradeStartedAt: null as string | null };
    const now = Date.parse("2026-11-02T12:00:00Z");
    it("is an upgrade under way when nobody started it here and the cluster has not run that release", () => {
      expect(startFoundOnCluster(a, { desiredImage: a.releaseImage, history }, now)).toBe(true);
      expect(startFoundOnCluster(a, { desiredImage: "quay.io/x@sha256:2", history }, now)).toBe(false);
    });
    it("waits for a start recorded moments ago to reach its own state change", () => {
      const recent = { ...a, upgradeStartedAt: new Date(now - 10_000).toISOString() };
      const older = { ...a, upgradeStartedAt: new Date(now - START_INTERRUPTED_AFTER_MS - 1).toISOString() };
      expect(startFoundOnCluster(recent, { desiredImage: a.releaseImage, history }, now)).toBe(false);
      expect(startFoundOnCluster(older, { desiredImage: a.releaseImage, history }, now)).toBe(true);
    });
    it("is a desiredUpdate left from an earlier upgrade when the cluster ran that release and nobody started it here", () => {
      const ran = [{ version: "4.19.11", state: "Completed" }];
      expect(startFoundOnCluster(a, { desiredImage: a.releaseImage, history: ran }, now)).toBe(false);
    });
  });
});

describe("what keeps Start upgrade back", () => {
  const quiet: UpgradeState = { current: "4.19.10", desired: "4.19.10", completed: false, progressing: null, refused: null };
  const allDone = { total: 3, done: 3, pulling: 0, waiting: 0, failed: 0, retrying: 0, allDone: true };
  const preloading = { state: "preloading" as const, releaseVersion: "4.19.11" };
  const failingCheck = { title: "Admin gates", detail: "ack-4.19 missing", status: "fail" as const };

  it("reads the upgrade's state from ClusterVersion", () => {
    const s = healthyCluster({
      version: {
        ...versionFacts(historyOf("4.19.10")),
        desired: "4.19.11",
        conditions: [
          cond("Progressing", "True", null, "Working towards 4.19.11"),
          cond("ReleaseAccepted", "False", "PreconditionChecks", "Upgradeable=False"),
        ],
      },
    });
    expect(upgradeStateOf(s, "4.19.11")).toEqual({
      current: "4.19.10",
      desired: "4.19.11",
      completed: false,
      progressing: "Working towards 4.19.11",
      refused: "Upgradeable=False",
    });
  });

  it("nothing once every node has the images and nothing fails", () => {
    const found = upgradeBlockers({
      application: preloading,
      summary: allDone,
      readinessChecks: [],
      missingSets: [],
      upgrade: quiet,
      otherUpgrade: null,
    });
    expect(found).toEqual([]);
    expect(overridable(found)).toBe(false);
  });

  it("only failing readiness checks may be overridden", () => {
    const onlyReadiness = upgradeBlockers({
      application: preloading,
      summary: allDone,
      readinessChecks: [failingCheck, { ...failingCheck, title: "Paused pools", status: "warn" }],
      missingSets: [],
      upgrade: quiet,
      otherUpgrade: null,
    });
    expect(onlyReadiness).toEqual([{ text: "Readiness for 4.19.11: Admin gates: ack-4.19 missing", overridable: true }]);
    expect(overridable(onlyReadiness)).toBe(true);

    const more = upgradeBlockers({
      application: preloading,
      summary: { ...allDone, done: 2, pulling: 1, allDone: false },
      readinessChecks: [failingCheck],
      missingSets: ["fleetskew-4-19-11-aaaaaaaa-worker"],
      upgrade: { ...quiet, desired: "4.20.1" },
      otherUpgrade: { releaseVersion: "4.20.1", upgradeStartedBy: "tess" },
    });
    expect(more.map((b) => b.text)).toEqual([
      "1 of 3 nodes do not have the images yet.",
      "Readiness for 4.19.11: Admin gates: ack-4.19 missing",
      "PinnedImageSet fleetskew-4-19-11-aaaaaaaa-worker is missing on the cluster; Fleetskew creates it again.",
      "The cluster is already updating to 4.20.1; starting another update now would change its target midway.",
      "The upgrade to 4.20.1 (another bundle) was started by tess and has not completed.",
    ]);
    expect(overridable(more)).toBe(false);
  });

  it("while the image sets are being created, that alone", () => {
    const found = upgradeBlockers({
      application: { ...preloading, state: "applying" },
      summary: { ...allDone, done: 0, allDone: false },
      readinessChecks: [failingCheck],
      missingSets: [],
      upgrade: quiet,
      otherUpgrade: null,
    });
    expect(found).toEqual([{ text: "The PinnedImageSets are still being created.", overridable: false }]);
  });
});
