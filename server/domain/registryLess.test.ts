import { describe, expect, it } from "vitest";
import { precheckBundle } from "./bundlePrechecks";
import { evaluateReadiness } from "./readiness";
import { bundleVersion, imageDigest, registryLessPrecheck, registryLessState, releaseFor, servableReleases } from "./registryLess";
import type { ClusterSnapshot, InternalReleaseImageFacts } from "./snapshot";
import { GiB, manifest } from "./testing/bundles";
import { apiIntDown, BUNDLE, DIGEST, healthyIri, oneRegistryDown } from "./testing/registryLess";
import { cond, healthyCluster, history, node, pool, versionFacts } from "./testing/snapshots";

/** A 4.22.0 cluster installed without a registry, with the given InternalReleaseImage. */
const edge = (iri: InternalReleaseImageFacts | null | undefined): ClusterSnapshot =>
  healthyCluster({ version: versionFacts(history("4.22.0"), { availableUpdates: ["4.22.3", "4.23.1"] }), internalReleaseImage: iri });
const check = (s: ClusterSnapshot, target: string) => evaluateReadiness(s, target).checks.find((c) => c.id === "registry-less")!;

describe("bundle names (openshift/api InternalReleaseImageRef.name CEL: ocp-release-bundle-<version>-<arch|stream>)", () => {
  it.each([
    ["ocp-release-bundle-4.22.0-x86_64", "4.22.0"],
    ["ocp-release-bundle-4.22.0-ec.3-x86_64", "4.22.0-ec.3"],
    ["ocp-release-bundle-4.22.10-rhel-coreos", "4.22.10"],
    ["not-a-bundle", null],
    ["ocp-release-bundle-4.22-x86_64", null],
  ])("%s carries %s", (name, version) => expect(bundleVersion(name)).toBe(version));

  it("reads the digest of a release image, not the MCO's all-zero placeholder (aggregation.go unavailableImageDigest)", () => {
    expect(imageDigest(`api-int.a.b:22625/openshift/release-images@${DIGEST}`)).toBe(DIGEST);
    expect(imageDigest(`api-int.a.b:22625/openshift/release-images@sha256:${"0".repeat(64)}`)).toBeNull();
    expect(imageDigest("quay.io/x:4.22")).toBeNull();
  });
});

describe("which releases a registry-less cluster serves (InternalReleaseImageStatus.Releases: safe to pull when Available=True and Degraded=False)", () => {
  it("a cluster without an InternalReleaseImage is not registry-less", () => {
    expect(registryLessState(healthyCluster())).toBeNull();
    expect(registryLessState(edge(null))).toBeNull();
  });

  it("happy-path.csv: the install bundle is available and nothing is wrong", () => {
    const state = registryLessState(edge(healthyIri()))!;
    expect(servableReleases(state).map((r) => [r.name, r.version, r.digest, r.state])).toEqual([[BUNDLE, "4.22.0", DIGEST, "available"]]);
    expect(state.problems).toEqual([]);
    expect(state.nodes.map((n) => n.state)).toEqual(["available", "available", "available"]);
  });

  it("registry-unavailable-not-on-api-int.csv: still served, degraded; the node's registry and the IRI's reason are each named once", () => {
    const state = registryLessState(edge(oneRegistryDown()))!;
    expect(state.releases[0]).toMatchObject({ state: "degraded", reason: "SomeRegistriesUnavailable" });
    expect(servableReleases(state)).toHaveLength(1);
    expect(state.problems.map((p) => [p.source, p.reason])).toEqual([
      ["InternalReleaseImage cluster", "SomeRegistriesUnavailable"],
      ["node master-0", "RegistryUnreachable"],
    ]);
    expect(state.nodes.find((n) => n.node === "master-0")).toMatchObject({ state: "degraded", reason: "RegistryUnreachable" });
  });

  it("buildAPIIntUnavailableReleases: api-int down leaves nothing to serve", () => {
    const state = registryLessState(edge(apiIntDown()))!;
    expect(servableReleases(state)).toEqual([]);
    expect(state.releases[0]).toMatchObject({ state: "unavailable", digest: null, reason: "ApiIntNotAvailable" });
    expect(state.problems[0]).toMatchObject({ reason: "ApiIntNotAvailable" });
  });

  it("buildAggregatedReleases: a requested bundle no node has is unavailable even while the top-level Degraded stays False", () => {
    const iri = healthyIri();
    iri.requested.push("ocp-release-bundle-4.22.3-x86_64");
    iri.releases.push({
      name: "ocp-release-bundle-4.22.3-x86_64",
      image: `api-int.x.y:22625/openshift/release-images@sha256:${"0".repeat(64)}`,
      conditions: [
        cond("Available", "False", "ReleaseImageNotAvailable", "The specified release image is not available"),
        cond("Degraded", "True", "ReleaseImageNotAvailable", "The specified release image is not available"),
      ],
    });
    const state = registryLessState(edge(iri))!;
    expect(servableReleases(state).map((r) => r.name)).toEqual([BUNDLE]);
    expect(state.problems.map((p) => p.source)).toEqual(["release ocp-release-bundle-4.22.3-x86_64"]);
  });

  it("a release asked for in spec but not yet in status is not served", () => {
    const iri = { ...healthyIri(), requested: [BUNDLE, "ocp-release-bundle-4.23.1-x86_64"] };
    const state = registryLessState(edge(iri))!;
    expect(state.releases.map((r) => [r.name, r.state])).toEqual([
      [BUNDLE, "available"],
      ["ocp-release-bundle-4.23.1-x86_64", "unavailable"],
    ]);
  });

  it("matches a release by digest first, else by version or minor", () => {
    const state = registryLessState(edge(healthyIri()))!;
    expect(releaseFor(state, "4.22.0")?.name).toBe(BUNDLE);
    expect(releaseFor(state, "4.22")?.name).toBe(BUNDLE);
    expect(releaseFor(state, "4.22.3")).toBeNull();
    expect(releaseFor(state, "9.9.9", DIGEST)?.name).toBe(BUNDLE);
    expect(releaseFor(state, "4.22.0", `sha256:${"cd".repeat(32)}`)).toBeNull();
  });

  it("survives a stored snapshot of another shape", () => {
    const odd = {
      requested: "x",
      releases: [null, { name: 3 }],
      conditions: null,
      nodes: undefined,
    } as unknown as InternalReleaseImageFacts;
    expect(registryLessState(edge(odd))).toEqual({ releases: [], problems: [], nodes: [] });
  });
});

describe("readiness for a target (registry-less check)", () => {
  it("passes for a cluster with a registry, and is unknown when the InternalReleaseImage could not be read", () => {
    expect(check(healthyCluster(), "4.20.0").status).toBe("pass");
    const unread = healthyCluster({ problems: [{ part: "InternalReleaseImage", kind: "error", message: "boom" }] });
    expect(check(unread, "4.20.0")).toMatchObject({ status: "unknown", detail: expect.stringContaining("boom") });
  });

  it("calls out a target the cluster cannot serve, naming what it does serve", () => {
    const c = check(edge(healthyIri()), "4.23.1");
    expect(c.status).toBe("fail");
    expect(c.detail).toContain(`cannot serve 4.23.1: its InternalReleaseImage serves ${BUNDLE} (4.22.0)`);
    expect(c.remediation).toMatch(/does not add a release bundle to a running registry-less cluster/);
  });

  it("a degraded IRI or a node registry that is down fails with its reason, whatever the target", () => {
    const c = check(edge(oneRegistryDown()), "4.22.0");
    expect(c.status).toBe("fail");
    expect(c.detail).toContain("InternalReleaseImage cluster: SomeRegistriesUnavailable");
    expect(c.detail).toContain("node master-0: RegistryUnreachable, registry query: connection refused");
    expect(c.evidence).toContainEqual(expect.objectContaining({ kind: "MachineConfigNode", name: "master-0" }));
    expect(check(edge(apiIntDown()), "4.22.0").detail).toContain("ApiIntNotAvailable");
  });

  it("a served target on a healthy registry passes, and the check is a blocker otherwise", () => {
    const healthy = evaluateReadiness(edge(healthyIri()), "4.22.0");
    expect(healthy.checks.find((c) => c.id === "registry-less")!.status).toBe("pass");
    expect(evaluateReadiness(edge(healthyIri()), "4.23.1").blockers).toContain("registry-less");
  });
});

describe("bundle prechecks on a registry-less cluster (before any PinnedImageSet is written)", () => {
  const input = (iri: InternalReleaseImageFacts | null, release = manifest.release) => ({
    manifest: { ...manifest, release },
    digest: "d".repeat(64),
    pools: [{ name: "master", degraded: false, updating: false, degradedMessage: null }],
    nodes: [{ ...node("master-0", "master"), ephemeralBytes: 200 * GiB }],
    alwaysPullPods: [],
    pinnedImageSets: [],
    unavailable: [],
    internalReleaseImage: iri,
  });

  it("a bundle for a release the cluster cannot pull fails", () => {
    const checks = precheckBundle(input(healthyIri()));
    const c = checks.find((x) => x.id === "registry-less-release")!;
    expect(c).toMatchObject({ status: "fail", title: "This cluster cannot pull release 4.19.11", items: [BUNDLE] });
    expect(c.detail).toContain(`serves ${BUNDLE} (4.22.0)`);
  });

  it("the release it serves passes, by digest or version; degraded warns; api-int down fails", () => {
    const same = { version: "4.22.0", image: `quay.io/openshift-release-dev/ocp-release@${DIGEST}` };
    expect(registryLessPrecheck({ release: same }, healthyIri())?.status).toBe("pass");
    expect(registryLessPrecheck({ release: { ...same, version: "4.22.0" } }, oneRegistryDown())?.status).toBe("warn");
    expect(registryLessPrecheck({ release: same }, apiIntDown())?.status).toBe("fail");
  });

  it("adds nothing on a cluster with a registry", () => {
    expect(precheckBundle(input(null)).some((c) => c.id === "registry-less-release")).toBe(false);
    expect(registryLessPrecheck(manifest, undefined)).toBeNull();
  });

  it("keeps a pool's own checks beside it", () => {
    const ids = precheckBundle(input(healthyIri())).map((c) => c.id);
    expect(ids).toEqual(expect.arrayContaining(["registry-less-release", "disk-space", "always-pull-pods"]));
    expect(pool("master").name).toBe("master");
  });
});
