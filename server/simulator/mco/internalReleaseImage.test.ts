import { describe, expect, it } from "vitest";
import { nodeIriStatus, syncInternalReleaseImage, transformToAPIIntURL } from "./internalReleaseImage";

/**
 * The simulated InternalReleaseImage controller against the MCO's own cases:
 * pkg/controller/internalreleaseimage/testdata/acceptance/*.csv (three control-plane nodes, one
 * bundle) and `TestTransformToAPIIntURL` (internalreleaseimage_controller_test.go). Where an
 * acceptance table and the controller's code disagree, the code decides, and the case says so.
 */
const NOW = "2026-11-20T10:00:00Z";
const BUNDLE = "ocp-release-bundle-4.22.0-x86_64";
const DIGEST = "ab".repeat(32);
const DOMAIN = "ove.example.com";
const DOWN = { reachable: false, error: "registry query: dial tcp [::1]:22625: connect: connection refused" } as const;
const UP = { reachable: true } as const;

const node = (name: string, ready = true) => ({
  metadata: { name, labels: { "node-role.kubernetes.io/master": "" } },
  status: { conditions: [{ type: "Ready", status: ready ? "True" : "Unknown" }] },
});
const mcn = (name: string, registry: typeof UP | typeof DOWN) => ({
  metadata: { name },
  status: nodeIriStatus({ conditions: [] }, [{ name: BUNDLE, digest: DIGEST }], registry, NOW),
});
const iri = { metadata: { name: "cluster", generation: 1 }, spec: { releases: [{ name: BUNDLE }] }, status: {} };

function sync(
  registries: [typeof UP | typeof DOWN, typeof UP | typeof DOWN, typeof UP | typeof DOWN],
  opts: { apiInt?: boolean; notReady?: string[] } = {},
) {
  const names = ["master-0", "master-1", "master-2"];
  const status = syncInternalReleaseImage({
    iri,
    mcns: names.map((n, i) => mcn(n, registries[i]!)),
    nodes: names.map((n) => node(n, !opts.notReady?.includes(n))),
    clusterDomain: DOMAIN,
    apiIntReachable: opts.apiInt ?? true,
    now: NOW,
  });
  const cond = (list: { type: string }[], type: string) => list.find((c) => c.type === type) as Record<string, unknown>;
  const release = status.releases[0];
  return {
    top: cond(status.conditions, "Degraded"),
    available: cond(release.conditions, "Available"),
    degraded: cond(release.conditions, "Degraded"),
    image: release.image as string,
  };
}

describe("simulated IRI controller: the MCO's acceptance tables", () => {
  it("happy-path.csv", () => {
    const r = sync([UP, UP, UP]);
    expect(r.top).toMatchObject({ status: "False", reason: "AllReleasesAvailable", message: "All the release images are available" });
    expect(r.available).toMatchObject({
      status: "True",
      reason: "ReleaseImageAvailable",
      message: "The specified release image is available",
    });
    expect(r.degraded).toMatchObject({ status: "False", reason: "ReleaseImageAvailable", message: "ReleaseImageAvailable" });
    expect(r.image).toBe(`api-int.${DOMAIN}:22625/openshift/release-images@sha256:${DIGEST}`);
  });

  it("registry-unavailable-not-on-api-int.csv: degraded, still available through the healthy nodes", () => {
    const r = sync([DOWN, UP, UP]);
    const message = "The following nodes are degraded: [master-0]. See the related MachineConfigNode resource status for more details.";
    expect(r.top).toMatchObject({ status: "True", reason: "SomeRegistriesUnavailable", message });
    expect(r.available).toMatchObject({ status: "True", reason: "ReleaseImageAvailable" });
    expect(r.degraded).toMatchObject({ status: "True", reason: "SomeRegistriesUnavailable", message });
  });

  it("registry-unavailable-on-api-int.csv: api-int answers nothing, so no release is available (the code adds api-int's port to the message)", () => {
    const r = sync([DOWN, UP, UP], { apiInt: false });
    expect(r.top).toMatchObject({
      status: "True",
      reason: "ApiIntNotAvailable",
      message: `Unable to reach any registry via api-int.${DOMAIN}:22625`,
    });
    expect(r.available).toMatchObject({
      status: "False",
      reason: "ApiIntNotAvailable",
      message: "The specified release image is not available",
    });
    expect(r.degraded).toMatchObject({ status: "True", reason: "ApiIntNotAvailable", message: "ApiIntNotAvailable" });
    expect(r.image).toBe(`api-int.${DOMAIN}:22625/openshift/release-images@sha256:${"0".repeat(64)}`);
  });

  it("all-registries-unavailable.csv: every node degraded, no release available (the code keeps the node's RegistryUnreachable reason, the table says ReleaseImageNotAvailable)", () => {
    const r = sync([DOWN, DOWN, DOWN]);
    const message =
      "The following nodes are degraded: [master-0, master-1, master-2]. See the related MachineConfigNode resource status for more details.";
    expect(r.top).toMatchObject({ status: "True", reason: "SomeRegistriesUnavailable", message });
    expect(r.available).toMatchObject({ status: "False", reason: "RegistryUnreachable" });
    expect(r.degraded).toMatchObject({ status: "True", reason: "SomeRegistriesUnavailable", message });
  });

  it("nodes-not-ready.csv, with master-0's registry still reporting healthy: SomeNodesUnavailable", () => {
    const r = sync([UP, UP, UP], { notReady: ["master-0"] });
    expect(r.top).toMatchObject({
      status: "True",
      reason: "SomeNodesUnavailable",
      message: "The following nodes are not ready: [master-0]. See the related Node resource status for more details.",
    });
    expect(r.available).toMatchObject({ status: "True" });
    expect(r.degraded).toMatchObject({
      status: "True",
      reason: "SomeNodesUnavailable",
      message: "The following nodes are not ready: [master-0].",
    });
  });

  it("nodes-not-ready.csv as written (master-0 also RegistryUnreachable): processMCNReleases checks the MCN after readiness, so SomeRegistriesUnavailable wins", () => {
    expect(sync([DOWN, UP, UP], { notReady: ["master-0"] }).top).toMatchObject({ reason: "SomeRegistriesUnavailable" });
  });
});

describe("TestTransformToAPIIntURL", () => {
  it.each([
    [
      "localhost without localdomain",
      "localhost:22625/openshift/release-images@sha256:abc123",
      "ostest.test.metalkube.org",
      "api-int.ostest.test.metalkube.org:22625/openshift/release-images@sha256:abc123",
    ],
    ["no port returns input unchanged", "localhost", "example.com", "localhost"],
    [
      "no port with sha256 digest returns input unchanged",
      "localhost/openshift/release-images@sha256:abc123",
      "example.com",
      "localhost/openshift/release-images@sha256:abc123",
    ],
    [
      "non-localhost host with port",
      "virthost.example.com:5000/openshift/release-images@sha256:abc123",
      "ostest.test.metalkube.org",
      "api-int.ostest.test.metalkube.org:5000/openshift/release-images@sha256:abc123",
    ],
  ])("%s", (_name, input, domain, expected) => expect(transformToAPIIntURL(input, domain)).toBe(expected));
});
