import { reconcileInternalReleaseImage, nodeIriStatus } from "../mco/internalReleaseImage";
import type { ClusterSpec } from "../cluster";
import type { KubeObject } from "../objectStore";
import { generatedObjects } from "./objects";
import type { ClusterParams } from "./params";
import { iso, planFor, releaseDigest } from "./plan";
import { arrayView } from "./settle";

/**
 * A cluster installed without a registry (the agent-based installer's registry-less flow): three
 * control-plane nodes serve the release it was installed with from an InternalReleaseImage, and
 * master-0's registry does not answer, so its MachineConfigNode and the InternalReleaseImage report
 * it degraded while api-int still serves the release through the other two (the MCO's acceptance
 * case registry-unavailable-not-on-api-int).
 */
export const REGISTRY_LESS_CLUSTER = "edge-registryless";
const VERSION = "4.22.2";
export const REGISTRY_LESS_BUNDLE = `ocp-release-bundle-${VERSION}-x86_64`;

export const registryLessParams: ClusterParams = {
  name: REGISTRY_LESS_CLUSTER,
  infraId: `${REGISTRY_LESS_CLUSTER}-kq7dz`,
  platform: "None",
  region: "site",
  topology: "compact",
  installVersion: VERSION,
  history: [VERSION],
  managedBootImages: "unset",
  enforcementSpec: null,
  ownedMachineSet: false,
  windowsMachineSet: false,
  customAmi: false,
  azureStackHub: false,
  imageMode: false,
  pinned: "none",
  provisioning: null,
};

/** The registry-less cluster, served with these tokens. */
export const registryLessSpec = (tokens: { token: string; readOnlyToken: string }): ClusterSpec => ({
  name: REGISTRY_LESS_CLUSTER,
  ocpVersion: VERSION,
  ...tokens,
  objects: registryLessObjects,
});

export function registryLessObjects(): KubeObject[] {
  const plan = planFor(registryLessParams);
  const objects = generatedObjects(registryLessParams);
  const now = iso(plan.releases.at(-1)!.at);
  const digest = releaseDigest(VERSION).split("@sha256:")[1]!;
  // What the installer lays down (installer internalreleaseimage.go manifest): one bundle, the install release.
  objects.push({
    apiVersion: "machineconfiguration.openshift.io/v1",
    kind: "InternalReleaseImage",
    metadata: {
      name: "cluster",
      generation: 1,
      labels: { "openshift.io/operator-managed": "" },
      finalizers: ["internalreleaseimage.machineconfiguration.openshift.io"],
    },
    spec: { releases: [{ name: REGISTRY_LESS_BUNDLE }] },
    status: {},
  } as KubeObject);
  // Each master's daemon reports its own registry; master-0's is down.
  for (const mcn of objects.filter((o) => o.kind === "MachineConfigNode")) {
    const name = mcn.metadata.name ?? "";
    if (!name.includes("-master-")) continue;
    const registry = name.endsWith("-master-0")
      ? ({
          reachable: false,
          error: `error querying the registry: Get "https://localhost:22625/v2/": dial tcp [::1]:22625: connect: connection refused`,
        } as const)
      : ({ reachable: true } as const);
    (mcn as { status: unknown }).status = nodeIriStatus(
      (mcn as { status?: Record<string, unknown> }).status ?? {},
      [{ name: REGISTRY_LESS_BUNDLE, digest }],
      registry,
      now,
    );
  }
  reconcileInternalReleaseImage(arrayView(objects, plan.current, plan.releases.at(-1)!.at, true));
  return objects;
}
