import type { KubeObject } from "../../objectStore";
import { hexOf, uidOf } from "../random";
import { iso, type ClusterPlan } from "../plan";

/** The namespaces the other builders' objects live in. */
export function namespaces({ p }: ClusterPlan): KubeObject[] {
  return ["openshift-config", "openshift-config-managed", "openshift-machine-api", "openshift-machine-config-operator"].map((ns) => ({
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: ns, uid: uidOf(`${p.name}/ns/${ns}`) },
    status: { phase: "Active" },
  }));
}

/** Infrastructure/cluster: platform, region, topology; Azure Stack Hub says so in its cloud name. */
export function infrastructure({ p, controlPlaneTopology }: ClusterPlan): KubeObject[] {
  const platformStatus =
    p.platform === "AWS"
      ? { aws: { region: p.region } }
      : p.platform === "GCP"
        ? { gcp: { region: p.region, projectID: `${p.name}-project` } }
        : p.platform === "Azure"
          ? { azure: { cloudName: p.azureStackHub ? "AzureStackCloud" : "AzurePublicCloud", resourceGroupName: `${p.infraId}-rg` } }
          : {};
  return [
    {
      apiVersion: "config.openshift.io/v1",
      kind: "Infrastructure",
      metadata: { name: "cluster", uid: uidOf(`${p.name}/infra`) },
      spec: {
        platformSpec:
          p.platform === "VSphere"
            ? {
                type: p.platform,
                // As the installer writes it since 4.13: the vCenter and one failure domain the MachineSets' workspace names.
                vsphere: {
                  vcenters: [{ server: "vcenter.example.com", port: 443, datacenters: [p.region] }],
                  failureDomains: [
                    {
                      name: "generated-zone",
                      region: p.region,
                      zone: "generated-zone",
                      server: "vcenter.example.com",
                      topology: {
                        datacenter: p.region,
                        datastore: "datastore1",
                        computeCluster: `/${p.region}/host/cluster1`,
                        networks: ["VM Network"],
                        folder: `/${p.region}/vm/${p.infraId}`,
                      },
                    },
                  ],
                },
              }
            : { type: p.platform },
      },
      status: {
        infrastructureName: p.infraId,
        platform: p.platform,
        platformStatus: { type: p.platform, ...platformStatus },
        apiServerURL: `https://api.${p.name}.example.com:6443`,
        controlPlaneTopology,
        infrastructureTopology: controlPlaneTopology,
      },
    },
  ];
}

/** Bare metal: the provisioning singleton the installer creates; the legacy path serves the install's RHCOS image by URL. */
export function provisioning({ p, start, installBuild }: ClusterPlan): KubeObject[] {
  if (!p.provisioning) return [];
  return [
    {
      apiVersion: "metal3.io/v1alpha1",
      kind: "Provisioning",
      metadata: {
        name: "provisioning-configuration",
        uid: uidOf(`${p.name}/provisioning`),
        generation: 1,
        creationTimestamp: iso(start),
        finalizers: ["provisioning.metal3.io"],
      },
      spec:
        p.provisioning === "os-download-url"
          ? {
              provisioningNetwork: "Managed",
              provisioningInterface: "enp1s0",
              provisioningIP: "172.22.0.3",
              provisioningNetworkCIDR: "172.22.0.0/24",
              provisioningDHCPRange: "172.22.0.10,172.22.0.254",
              provisioningOSDownloadURL: `http://provisioning.example.com/images/rhcos-${installBuild}-openstack.x86_64.qcow2.gz?sha256=${hexOf(installBuild, 64)}`,
            }
          : { provisioningNetwork: "Disabled", provisioningIP: "192.168.111.3", provisioningNetworkCIDR: "192.168.111.0/24" },
      status: { observedGeneration: 1 },
    },
  ];
}
