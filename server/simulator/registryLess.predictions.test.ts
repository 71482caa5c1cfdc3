import { describe, expect, it } from "vitest";
import { normalizeSnapshot } from "../collector/normalize";
import { evaluateReadiness } from "../domain/readiness";
import { registryLessPrecheck, registryLessState, servableReleases } from "../domain/registryLess";
import { CapturedCluster } from "../kube/captured";
import type { DumpObject } from "../kube/dumps";
import { readClusterObjects } from "../kube/readers";
import { nodeIriStatus, reconcileInternalReleaseImage } from "./mco/internalReleaseImage";
import { REGISTRY_LESS_BUNDLE, registryLessObjects } from "./scenarios/registryLess";
import { arrayView } from "./scenarios/settle";

/**
 * What Fleetskew concludes about a registry-less cluster (server/domain/registryLess.ts), checked
 * against the InternalReleaseImage status the simulated MCO writes (server/simulator/mco, from the
 * MCO's aggregation.go) for each of its acceptance scenarios, read through the real readers.
 */
type Any = Record<string, any>;
const DOWN = { reachable: false, error: "registry query: connection refused" } as const;
const UP = { reachable: true } as const;

async function scenario(registries: (typeof UP | typeof DOWN)[], apiInt = true) {
  const objects = registryLessObjects() as Any[];
  const cv = objects.find((o) => o.kind === "ClusterVersion")!;
  const digest = (cv.status.desired.image as string).split("@sha256:")[1]!;
  const masters = objects.filter((o) => o.kind === "MachineConfigNode" && /-master-\d$/.test(o.metadata.name));
  masters.forEach(
    (m, i) => (m.status = nodeIriStatus(m.status, [{ name: REGISTRY_LESS_BUNDLE, digest }], registries[i]!, "2026-11-20T10:00:00Z")),
  );
  reconcileInternalReleaseImage(arrayView(objects as never, "4.22.2", new Date("2026-11-20T10:00:00Z"), true), apiInt);
  const snapshot = normalizeSnapshot(await readClusterObjects(new CapturedCluster(objects as DumpObject[])));
  const bundle = { release: { version: "4.22.2", image: `quay.io/openshift-release-dev/ocp-release@sha256:${digest}` } };
  return { snapshot, state: registryLessState(snapshot)!, precheck: registryLessPrecheck(bundle, snapshot.internalReleaseImage) };
}

describe("registry-less predictions against the simulated MCO", () => {
  it("every registry up: the release is available, nothing is wrong, its bundle passes", async () => {
    const { snapshot, state, precheck } = await scenario([UP, UP, UP]);
    expect(servableReleases(state).map((r) => r.state)).toEqual(["available"]);
    expect(state.problems).toEqual([]);
    expect(precheck?.status).toBe("pass");
    expect(evaluateReadiness(snapshot, "4.23").checks.find((c) => c.id === "registry-less")).toMatchObject({ status: "fail" });
  });

  it("one registry down: served but degraded, the node named; its bundle warns", async () => {
    const { state, precheck } = await scenario([DOWN, UP, UP]);
    expect(servableReleases(state).map((r) => r.state)).toEqual(["degraded"]);
    expect(state.problems.map((p) => p.reason)).toEqual(["SomeRegistriesUnavailable", "RegistryUnreachable"]);
    expect(precheck?.status).toBe("warn");
  });

  it("every registry down, or api-int down: nothing can be pulled, its bundle fails", async () => {
    for (const [registries, apiInt] of [
      [[DOWN, DOWN, DOWN], true],
      [[DOWN, UP, UP], false],
    ] as const) {
      const { state, precheck } = await scenario([...registries], apiInt);
      expect(servableReleases(state)).toEqual([]);
      expect(precheck?.status).toBe("fail");
    }
  });
});
