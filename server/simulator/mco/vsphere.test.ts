import { describe, expect, it } from "vitest";
import { syncBootImages } from "./bootImageController";

/*
 * The simulated boot image controller on vSphere, by release-4.22's platform_helpers.go
 * reconcileVSphereProviderSpec and vsphere_helpers.go createNewVMTemplate (9027c94cde45).
 */
const NOW = "2026-11-26T22:00:00Z";
const stream = { stream: "rhcos-4.22", architectures: { x86_64: { artifacts: { vmware: { release: "9.6.20251001-0" } } } } };
const fd = {
  name: "z1",
  server: "vc.example.com",
  topology: { datacenter: "dc1", datastore: "ds1", resourcePool: "/dc1/host/c1/Resources" },
};
const infra = (vsphere: unknown) => ({
  spec: { platformSpec: { type: "VSphere", ...(vsphere === undefined ? {} : { vsphere }) } },
  status: { platformStatus: { type: "VSphere" } },
});
const machineSet = (workspace: Record<string, string>) => ({
  metadata: { name: "w-vs", namespace: "openshift-machine-api" },
  spec: {
    template: {
      spec: {
        providerSpec: {
          value: { kind: "VSphereMachineProviderSpec", template: "rhcos-old", workspace, userDataSecret: { name: "worker-user-data" } },
        },
      },
    },
  },
});
const pass = (ms: unknown, infraObj: unknown) =>
  syncBootImages(
    {
      release: "4.22.1",
      machineConfiguration: {
        status: {
          managedBootImagesStatus: {
            machineManagers: [{ resource: "machinesets", apiGroup: "machine.openshift.io", selection: { mode: "All" } }],
          },
        },
      },
      machineSets: [ms as never],
      configMap: { data: { stream: JSON.stringify(stream), releaseVersion: "4.22.1" } },
      infra: infraObj as never,
      clusterVersion: { status: { history: [{ state: "Completed", version: "4.22.1" }], desired: {} } },
      controlPlaneArch: "amd64",
      publishedAmis: new Set(),
      skewEnforcement: true,
      reason: "MAPIMachineSetUpdated",
      now: NOW,
    },
    "4.21.0",
  );

describe("reconcileVSphereProviderSpec / createNewVMTemplate in the simulated MCO", () => {
  const ws = { server: "vc.example.com", datacenter: "dc1", datastore: "ds1", resourcePool: "/dc1/host/c1/Resources/" };

  it("a workspace matching a failure domain (resource pool after path.Clean) refreshes the template in place", () => {
    expect(pass(machineSet(ws), infra({ vcenters: [{ server: "vc.example.com" }], failureDomains: [fd] })).outcomes[0]).toEqual({
      name: "w-vs",
      outcome: "current",
    });
  });

  it("a workspace matching no failure domain is the MCO's error, and the controller goes Degraded", () => {
    const r = pass(machineSet({ ...ws, datastore: "ds2" }), infra({ vcenters: [{ server: "vc.example.com" }], failureDomains: [fd] }));
    expect(r.outcomes[0]).toEqual({
      name: "w-vs",
      outcome: "error",
      error:
        "error syncing MAPI MachineSet w-vs: failed to reconcile machineset w-vs, err: providerSpec workspace (server: vc.example.com, datacenter: dc1, datastore: ds2, resourcePool: /dc1/host/c1/Resources/) does not match any vCenter/failure domain in the Infrastructure object",
    });
    expect(r.conditions.find((c) => c.type === "BootImageUpdateDegraded")).toMatchObject({ status: "True" });
  });

  it("no spec.platformSpec.vsphere: nothing is done, and nothing counted as skipped", () => {
    const noVmware = { ...infra(undefined) };
    expect(pass(machineSet(ws), noVmware).outcomes[0]).toEqual({ name: "w-vs", outcome: "current" });
  });
});
