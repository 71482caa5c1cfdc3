import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluateReadiness } from "../domain/readiness";
import { registryLessPrecheck, registryLessState } from "../domain/registryLess";
import { CapturedCluster } from "../kube/captured";
import type { DumpObject } from "../kube/dumps";
import { readClusterObjects } from "../kube/readers";
import { factsOf } from "./facts";
import { normalizeSnapshot } from "./normalize";
import { clusterSkew } from "../domain/clusterSkew";

/**
 * The registry-less part of a snapshot, read by the real readers from captured objects shaped as
 * openshift/api machineconfiguration/v1 `InternalReleaseImage` and `MachineConfigNodeStatusInternalReleaseImage`.
 */
const DIGEST = `sha256:${"ab".repeat(32)}`;
const V1 = "machineconfiguration.openshift.io/v1";
const condition = (type: string, status: string, reason: string, message = reason) => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: "2026-11-20T10:00:00Z",
});
const iri = (extra: Record<string, unknown> = {}): DumpObject => ({
  apiVersion: V1,
  kind: "InternalReleaseImage",
  metadata: { name: "cluster" },
  spec: { releases: [{ name: "ocp-release-bundle-4.22.0-x86_64" }] },
  status: {
    conditions: [condition("Degraded", "False", "AllReleasesAvailable", "All the release images are available")],
    releases: [
      {
        name: "ocp-release-bundle-4.22.0-x86_64",
        image: `api-int.edge.example.com:22625/openshift/release-images@${DIGEST}`,
        conditions: [condition("Available", "True", "ReleaseImageAvailable"), condition("Degraded", "False", "ReleaseImageAvailable")],
      },
    ],
  },
  ...extra,
});
const mcn = (name: string, status: Record<string, unknown>): DumpObject => ({
  apiVersion: V1,
  kind: "MachineConfigNode",
  metadata: { name },
  spec: { node: { name }, pool: { name: "master" } },
  status,
});
const healthyMcn = (name: string) =>
  mcn(name, {
    conditions: [condition("InternalReleaseImageDegraded", "False", "AllReleasesAvailable")],
    internalReleaseImage: {
      releases: [
        {
          name: "ocp-release-bundle-4.22.0-x86_64",
          image: `localhost:22625/openshift/release-images@${DIGEST}`,
          conditions: [condition("Available", "True", "ReleaseImageAvailable")],
        },
      ],
    },
  });

const snapshotOf = async (objects: DumpObject[]) => normalizeSnapshot(await readClusterObjects(new CapturedCluster(objects)));

describe("internalReleaseImage in the snapshot", () => {
  it("reads the singleton and each node's status.internalReleaseImage", async () => {
    const s = await snapshotOf([iri(), healthyMcn("master-0"), mcn("worker-0", { conditions: [] })]);
    expect(s.internalReleaseImage).toMatchObject({
      requested: ["ocp-release-bundle-4.22.0-x86_64"],
      releases: [{ name: "ocp-release-bundle-4.22.0-x86_64", image: expect.stringContaining(DIGEST) }],
      conditions: [{ type: "Degraded", status: "False", reason: "AllReleasesAvailable" }],
      nodes: [{ node: "master-0", degraded: { status: "False" }, releases: [{ image: expect.stringMatching(/^localhost:22625/) }] }],
    });
    expect(s.problems.filter((p) => p.part === "InternalReleaseImage")).toEqual([]);
  });

  it("is null, with no problem, when the kind is not served or the object does not exist", async () => {
    expect((await snapshotOf([healthyMcn("master-0")])).internalReleaseImage).toBeNull();
    const s = await snapshotOf([{ ...iri(), metadata: { name: "other" } }]);
    expect(s.internalReleaseImage).toBeNull();
    expect(s.problems).not.toContainEqual(expect.objectContaining({ part: "InternalReleaseImage" }));
  });

  it("tolerates garbage entry by entry, and keeps the node's other status readable", async () => {
    const s = await snapshotOf([
      iri({
        spec: { releases: "all of them" },
        status: {
          conditions: [42, condition("Degraded", "True", "SyncError", "Error syncing InternalReleaseImage: boom")],
          releases: [null, { name: 7 }, { name: "ocp-release-bundle-4.22.0-x86_64", image: 5, conditions: "x" }],
        },
      }),
      mcn("master-0", {
        conditions: [condition("InternalReleaseImageDegraded", "True", "RegistryUnreachable", "dial tcp: connection refused")],
        internalReleaseImage: "garbage",
        pinnedImageSets: [{ name: "p", currentGeneration: 1, desiredGeneration: 1 }],
      }),
    ]);
    expect(s.internalReleaseImage).toEqual({
      requested: [],
      releases: [{ name: "ocp-release-bundle-4.22.0-x86_64", image: null, conditions: [] }],
      conditions: [expect.objectContaining({ type: "Degraded", status: "True", reason: "SyncError" })],
      nodes: [{ node: "master-0", degraded: expect.objectContaining({ reason: "RegistryUnreachable" }), releases: [] }],
    });
    expect(s.problems).toEqual(expect.not.arrayContaining([expect.objectContaining({ part: "MachineConfigNodes" })]));
  });

  it("a status of another shape reads as no releases, not a crash", async () => {
    const s = await snapshotOf([{ ...iri(), metadata: { name: "cluster" }, status: "nope" } as DumpObject]);
    expect(s.internalReleaseImage?.releases).toEqual([]);
  });

  it("keeps history of it as a fact, only for registry-less clusters", async () => {
    const s = await snapshotOf([iri(), healthyMcn("master-0")]);
    const fact = factsOf(s, clusterSkew(s), null).find((f) => f.fact === "internalReleaseImage");
    expect(fact?.value).toEqual({
      releases: [{ name: "ocp-release-bundle-4.22.0-x86_64", state: "available" }],
      degraded: false,
      problems: [],
      nodesDegraded: [],
    });
    const plain = await snapshotOf([healthyMcn("master-0")]);
    expect(factsOf(plain, clusterSkew(plain), null).some((f) => f.fact === "internalReleaseImage")).toBe(false);
  });
});

describe("whatever a cluster serves as its InternalReleaseImage and node status", () => {
  // Anything JSON can hold, in the places a cluster of another version (or a broken one) could put it.
  const junk = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom(null, [], {}, [null], [{ name: 1 }], [{ type: 3 }]));
  const release = fc.record(
    { name: fc.oneof(fc.constant("ocp-release-bundle-4.22.0-x86_64"), junk), image: junk, conditions: fc.oneof(junk, fc.array(junk)) },
    { requiredKeys: [] },
  );
  const releases = fc.oneof(junk, fc.array(fc.oneof(release, junk), { maxLength: 4 }));
  it("reads, normalizes, judges and prechecks without throwing", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          { spec: fc.oneof(junk, fc.record({ releases })), status: fc.oneof(junk, fc.record({ conditions: junk, releases })) },
          { requiredKeys: [] },
        ),
        fc.oneof(junk, fc.record({ releases })),
        async (iriParts, nodeIri) => {
          const s = await snapshotOf([
            { apiVersion: V1, kind: "InternalReleaseImage", metadata: { name: "cluster" }, ...(iriParts as object) } as DumpObject,
            mcn("master-0", { conditions: [], internalReleaseImage: nodeIri }),
          ]);
          const state = registryLessState(s);
          expect(state === null || Array.isArray(state.releases)).toBe(true);
          // evaluateReadiness turns a throwing check into "could not be evaluated": that must not happen here.
          const check = evaluateReadiness(s, "4.23.1").checks.find((c) => c.id === "registry-less")!;
          expect(check.detail).not.toMatch(/could not be evaluated/);
          registryLessPrecheck({ release: { version: "4.22.0", image: `quay.io/x@${DIGEST}` } }, s.internalReleaseImage);
        },
      ),
      { numRuns: 60 },
    );
  });
});
