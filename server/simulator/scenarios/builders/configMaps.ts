import type { KubeObject } from "../../objectStore";
import { amiFor, AWS_REGIONS, azureVersionFor, gcpImageFor } from "../bootImages";
import { hexOf, uidOf } from "../random";
import type { ClusterPlan } from "../plan";

/** coreos-bootimages: the stream of the current release (AWS AMIs per region, the GCP image, Azure marketplace images). */
export function bootImagesConfigMap({ p, minor, current, currentBuild, template }: ClusterPlan): KubeObject[] {
  const cm = structuredClone(template("ConfigMap").find((c) => c.metadata.name === "coreos-bootimages")!) as KubeObject & {
    data: Record<string, string>;
  };
  const stream = JSON.parse(cm.data.stream!);
  const arch = stream.architectures.x86_64;
  arch.artifacts = Object.fromEntries(
    Object.entries(arch.artifacts as Record<string, { release: string }>).map(([k, v]) => [k, { ...v, release: currentBuild }]),
  );
  arch.images.aws = {
    regions: Object.fromEntries(AWS_REGIONS.map((region) => [region, { release: currentBuild, image: amiFor(currentBuild, region) }])),
  };
  arch.images.gcp = { release: currentBuild, project: "rhcos-cloud", name: gcpImageFor(currentBuild) };
  const azure = arch["rhel-coreos-extensions"]?.marketplace?.azure?.["no-purchase-plan"];
  if (azure)
    for (const [gen, sku] of [
      ["hyperVGen1", `4${String(minor).padStart(2, "0")}-v1`],
      ["hyperVGen2", `4${String(minor).padStart(2, "0")}-v2`],
    ] as const)
      azure[gen] = { ...azure[gen], sku, version: azureVersionFor(currentBuild) };
  stream.stream = `rhcos-4.${minor}`;
  cm.metadata = { ...cm.metadata, uid: uidOf(`${p.name}/cm`) };
  cm.data = { ...cm.data, releaseVersion: current, MCOReleaseImageVersion: current, stream: JSON.stringify(stream) };
  return [cm];
}

const gateOf = (minor: number) => `ack-4.${minor}-kube-1.${minor + 14}-api-removals-in-4.${minor + 1}`;

/** admin-gates: the current minor's API-removal gate. */
export function adminGates({ minor }: ClusterPlan): KubeObject[] {
  return [
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "admin-gates", namespace: "openshift-config-managed" },
      data: {
        [gateOf(minor)]:
          `Kubernetes 1.${minor + 14} and therefore OpenShift 4.${minor + 1} remove several APIs which require admin consideration.`,
      },
    },
  ];
}

/** admin-acks: about half the fleet has acknowledged its gate already (decided by the name, so it is stable). */
export function adminAcks({ p, minor }: ClusterPlan): KubeObject[] {
  const acked = hexOf(`${p.name}/ack`, 1) < "8";
  return [
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "admin-acks", namespace: "openshift-config" },
      data: acked ? { [gateOf(minor)]: "true" } : {},
    },
  ];
}
