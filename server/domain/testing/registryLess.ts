import type { Condition, InternalReleaseImageFacts, IriReleaseFacts } from "../snapshot";
import { cond } from "./snapshots";

/**
 * InternalReleaseImage facts as the MCO writes them in the states of its own acceptance tables
 * (machine-config-operator pkg/controller/internalreleaseimage/testdata/acceptance/*.csv). Test-only.
 */
export const BUNDLE = "ocp-release-bundle-4.22.0-x86_64";
export const DIGEST = `sha256:${"ab".repeat(32)}`;
export const API_INT_IMAGE = `api-int.edge.example.com:22625/openshift/release-images@${DIGEST}`;
export const LOCAL_IMAGE = `localhost:22625/openshift/release-images@${DIGEST}`;

const release = (name: string, image: string | null, conditions: Condition[]): IriReleaseFacts => ({ name, image, conditions });

/** Daemon `refreshMachineConfigNodeStatus` on a node whose registry answers. */
export const healthyNodeRelease = (name = BUNDLE) =>
  release(name, LOCAL_IMAGE, [
    cond("Available", "True", "ReleaseImageAvailable", "The specified release image is available"),
    cond("Degraded", "False", "ReleaseImageAvailable", "ReleaseImageAvailable"),
  ]);

/** Controller, all three masters healthy (happy-path.csv). */
export function healthyIri(): InternalReleaseImageFacts {
  return {
    requested: [BUNDLE],
    releases: [
      release(BUNDLE, API_INT_IMAGE, [
        cond("Available", "True", "ReleaseImageAvailable", "The specified release image is available"),
        cond("Degraded", "False", "ReleaseImageAvailable", "ReleaseImageAvailable"),
      ]),
    ],
    conditions: [cond("Degraded", "False", "AllReleasesAvailable", "All the release images are available")],
    nodes: ["master-0", "master-1", "master-2"].map((node) => ({
      node,
      degraded: cond("InternalReleaseImageDegraded", "False", "AllReleasesAvailable", "All the release images are available"),
      releases: [healthyNodeRelease()],
    })),
  };
}

const NODE_DEGRADED = "The following nodes are degraded: [master-0]. See the related MachineConfigNode resource status for more details.";

/** master-0's registry is down, api-int still answers through the others (registry-unavailable-not-on-api-int.csv). */
export function oneRegistryDown(): InternalReleaseImageFacts {
  const iri = healthyIri();
  return {
    ...iri,
    releases: [
      release(BUNDLE, API_INT_IMAGE, [
        cond("Available", "True", "ReleaseImageAvailable", "The specified release image is available"),
        cond("Degraded", "True", "SomeRegistriesUnavailable", NODE_DEGRADED),
      ]),
    ],
    conditions: [cond("Degraded", "True", "SomeRegistriesUnavailable", NODE_DEGRADED)],
    nodes: iri.nodes.map((n) =>
      n.node === "master-0"
        ? {
            node: n.node,
            degraded: cond("InternalReleaseImageDegraded", "True", "RegistryUnreachable", "registry query: connection refused"),
            releases: [
              release(BUNDLE, LOCAL_IMAGE, [
                cond("Available", "False", "RegistryUnreachable", "Release bundle is unavailable: failed to reach the registry"),
                cond("Degraded", "True", "RegistryUnreachable", "registry query: connection refused"),
              ]),
            ],
          }
        : n,
    ),
  };
}

/** api-int does not answer: every release unavailable with the all-zero digest (aggregation.go `buildAPIIntUnavailableReleases`). */
export function apiIntDown(): InternalReleaseImageFacts {
  return {
    ...healthyIri(),
    releases: [
      release(BUNDLE, `api-int.edge.example.com:22625/openshift/release-images@sha256:${"0".repeat(64)}`, [
        cond("Available", "False", "ApiIntNotAvailable", "The specified release image is not available"),
        cond("Degraded", "True", "ApiIntNotAvailable", "ApiIntNotAvailable"),
      ]),
    ],
    conditions: [cond("Degraded", "True", "ApiIntNotAvailable", "Unable to reach any registry via api-int.edge.example.com:22625")],
  };
}
