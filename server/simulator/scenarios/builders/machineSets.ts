import type { KubeObject } from "../../objectStore";
import { amiFor, azureVersionFor, customAmiFor, gcpImageFor } from "../bootImages";
import { hexOf, uidOf } from "../random";
import { iso, type ClusterPlan, type MachineSetPlan } from "../plan";

type Value = Record<string, unknown>;

/** The provider spec of a MachineSet on its platform, pointing at the boot image it was created with. */
function providerSpec({ p }: ClusterPlan, ms: MachineSetPlan, awsTemplate: Value): Value {
  switch (p.platform) {
    case "AWS":
      return {
        ...awsTemplate,
        ami: {
          id: ms.windows ? `ami-0${hexOf(`${p.name}/windows`, 16)}` : ms.customAmi ? customAmiFor(p.name) : amiFor(ms.build, p.region),
        },
        placement: { availabilityZone: ms.zone, region: p.region },
      };
    case "GCP":
      return {
        apiVersion: "machine.openshift.io/v1beta1",
        kind: "GCPMachineProviderSpec",
        region: p.region,
        zone: ms.zone,
        machineType: "n2-standard-4",
        disks: [
          {
            autoDelete: true,
            boot: true,
            image: `projects/rhcos-cloud/global/images/${gcpImageFor(ms.build)}`,
            sizeGb: 128,
            type: "pd-ssd",
          },
        ],
        userDataSecret: { name: "worker-user-data" },
      };
    case "Azure": {
      // Installs before 4.13 uploaded their image to a gallery; later ones boot the unpaid marketplace image.
      const legacy = Number(ms.build.split(".")[0]) < 413 && ms.build.includes(".");
      const minor = ms.build.includes(".") && Number(ms.build.split(".")[0]) > 400 ? ms.build.split(".")[0]! : "419";
      return {
        apiVersion: "machine.openshift.io/v1beta1",
        kind: "AzureMachineProviderSpec",
        location: p.region,
        zone: ms.zone,
        vmSize: "Standard_D4s_v3",
        image: ms.windows
          ? {
              publisher: "MicrosoftWindowsServer",
              offer: "WindowsServer",
              sku: "2022-datacenter-smalldisk",
              version: "latest",
              resourceID: "",
              type: "",
            }
          : legacy
            ? {
                resourceID: `/resourceGroups/${p.infraId}-rg/providers/Microsoft.Compute/galleries/gallery_${p.infraId.replace(/-/g, "_")}/images/${p.infraId}-gen2/versions/latest`,
                publisher: "",
                offer: "",
                sku: "",
                version: "",
                type: "ID",
              }
            : {
                publisher: "azureopenshift",
                offer: "aro4",
                sku: `${minor}-v2`,
                version: azureVersionFor(ms.build),
                resourceID: "",
                type: "MarketplaceNoPlan",
              },
        userDataSecret: { name: "worker-user-data" },
      };
    }
    case "VSphere":
      return {
        apiVersion: "machine.openshift.io/v1beta1",
        kind: "VSphereMachineProviderSpec",
        template: `${p.infraId}-rhcos-${ms.zone}`,
        numCPUs: 4,
        memoryMiB: 16384,
        diskGiB: 120,
        workspace: { datacenter: p.region, datastore: "datastore1", folder: `/${p.region}/vm/${p.infraId}`, server: "vcenter.example.com" },
        userDataSecret: { name: "worker-user-data" },
      };
    default:
      return {
        apiVersion: "baremetal.cluster.k8s.io/v1alpha1",
        kind: "BareMetalMachineProviderSpec",
        image: {
          url: `http://provisioning.example.com/images/rhcos-${ms.build}-openstack.x86_64.qcow2`,
          checksum: `sha256:${hexOf(ms.build, 64)}`,
        },
        userData: { name: "worker-user-data-managed" },
      };
  }
}

/** MachineSets in openshift-machine-api, on the images they were created with (settle.ts lets the MCO move them). */
export function machineSets(plan: ClusterPlan): KubeObject[] {
  const { p, start, template } = plan;
  const msTemplate = template("MachineSet")[0]!;
  const awsProvider = (msTemplate.spec as { template: { spec: { providerSpec: { value: Value } } } }).template.spec.providerSpec.value;
  return plan.machineSets.map((ms) => {
    const obj = structuredClone(msTemplate) as KubeObject & {
      spec: {
        template: { spec: { providerSpec: { value: unknown } }; metadata: { labels: Record<string, string> } };
        selector: { matchLabels: Record<string, string> };
      };
    };
    obj.metadata = {
      name: ms.name,
      namespace: "openshift-machine-api",
      uid: uidOf(`${p.name}/${ms.name}`),
      generation: 1,
      creationTimestamp: iso(start),
      labels: ms.labels,
      annotations: msTemplate.metadata.annotations,
    };
    if (ms.owned)
      obj.metadata.ownerReferences = [
        { apiVersion: "example.com/v1", kind: "NodePoolController", name: "workers", uid: uidOf(`${p.name}/owner`) },
      ];
    const selectorLabels = {
      "machine.openshift.io/cluster-api-cluster": p.infraId,
      "machine.openshift.io/cluster-api-machineset": ms.name,
    };
    obj.spec.selector.matchLabels = selectorLabels;
    obj.spec.template.metadata.labels = {
      ...obj.spec.template.metadata.labels,
      ...selectorLabels,
      "machine.openshift.io/cluster-api-machine-role": ms.role,
      "machine.openshift.io/cluster-api-machine-type": ms.role,
      ...(ms.windows ? { "machine.openshift.io/os-id": "Windows" } : {}),
    };
    obj.spec.template.spec.providerSpec.value = providerSpec(plan, ms, structuredClone(awsProvider));
    return obj;
  });
}
