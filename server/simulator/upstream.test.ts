import { describe, expect, it } from "vitest";
import {
  ARCH_FROM_MACHINE_SET,
  AZURE_TEST_STREAM,
  IS_CLUSTER_STABLE,
  RECONCILE_AZURE,
  RESET_CLUSTER_BOOT_IMAGE,
  SKEW_GUARD,
  SYNC_MACHINE_CONFIGURATION,
} from "../domain/upstream/bootImageCases";
import { reconcileMachineConfiguration } from "./mco";
import { archOf, syncBootImages } from "./mco/bootImageController";
import { syncMachineConfiguration } from "./mco/operator";
import { machineConfigUpgradeable } from "./mco/upgradeable";
import { ocpInstallVersion } from "./mco/version";
import { arrayView } from "./scenarios/settle";

/** The MCO's own boot-image unit tests (server/domain/upstream/bootImageCases.ts), run against the simulated MCO. */
type Any = Record<string, any>;
const NOW = "2026-06-01T00:00:00Z";
const GO_ARCH: Record<string, string> = { x86_64: "amd64", aarch64: "arm64", ppc64le: "ppc64le", s390x: "s390x" };
const infra = (type: string, topology = "HighlyAvailable") => ({ status: { platformStatus: { type }, controlPlaneTopology: topology } });

describe("pkg/operator/sync_test.go TestSyncMachineConfiguration: the simulated operator's sync", () => {
  it.each(SYNC_MACHINE_CONFIGURATION.map((c) => [c.upstream, c] as const))("%s", (_name, c) => {
    const spec: Any = {};
    if (c.specManagers) spec.managedBootImages = { machineManagers: c.specManagers };
    if (c.specSkew) spec.bootImageSkewEnforcement = c.specSkew;
    const result = syncMachineConfiguration({
      release: "4.22.0",
      machineConfiguration: { metadata: { name: "cluster", generation: 1 }, spec, status: {} },
      infra: infra(c.platform, c.topology),
      installVersion: ocpInstallVersion(c.history),
      bareMetalLegacyProvisioning: !!c.provisioningURL,
      skewEnforcement: true,
      cpmsGate: c.cpmsGate === true,
      now: NOW,
    });
    expect(result.status.managedBootImagesStatus?.machineManagers).toEqual(c.expectedManagers);
    expect(result.optedInAt !== null).toBe(c.optIn);
    expect(result.status.bootImageSkewEnforcementStatus).toEqual(c.expectedSkew);
  });
});

describe("pkg/operator/status_test.go TestCheckBootImageSkewUpgradeableGuard: the simulated operator's Upgradeable", () => {
  it.each(SKEW_GUARD.map((c) => [c.upstream, c] as const))("%s", (_name, c) => {
    const mc = c.status ? { status: { bootImageSkewEnforcementStatus: c.status, conditions: c.status.conditions ?? [] } } : null;
    const condition = machineConfigUpgradeable("4.22.0", c.gate !== false, mc, c.history, []);
    expect(condition.status === "False" ? condition.message : null).toBe(c.message);
  });
});

describe("boot_image_controller_test.go TestGetArchFromMachineSet: the simulated controller's getArchFromMachineSet", () => {
  it.each(ARCH_FROM_MACHINE_SET.map((c) => [c.upstream, c] as const))("%s", (_name, c) => {
    const cv = { status: { desired: { architecture: c.multiArch ? "Multi" : "" } } };
    const run = () => archOf({ metadata: { name: "test-machineset", annotations: c.annotations } }, cv, "arm64");
    if (c.arch === null) {
      // An error, or for a missing annotation on a multi-arch cluster the skip the caller turns it into.
      let outcome: string;
      try {
        outcome = run();
      } catch {
        outcome = "error";
      }
      expect(["error", "skip"]).toContain(outcome);
    } else expect(run()).toBe(c.arch === "control-plane" ? "aarch64" : c.arch);
  });
});

describe("boot_image_controller_test.go TestReconcileAzureProviderSpec: one pass of the simulated controller", () => {
  it.each(RECONCILE_AZURE.map((c) => [c.upstream, c] as const))("%s", (_name, c) => {
    const stream = structuredClone(AZURE_TEST_STREAM) as Any;
    const extensions = stream.architectures.x86_64["rhel-coreos-extensions"];
    if (c.stream === "no-marketplace") delete extensions.marketplace;
    if (c.stream === "no-azure-marketplace") delete extensions.marketplace.azure;
    const machineSet = {
      metadata: {
        name: "test-machineset",
        annotations: { "capacity.cluster-autoscaler.kubernetes.io/labels": `kubernetes.io/arch=${GO_ARCH[c.arch]}` },
      },
      spec: {
        template: {
          metadata: { labels: {} },
          spec: {
            providerSpec: {
              value: {
                kind: "AzureMachineProviderSpec",
                image: c.image,
                userDataSecret: { name: "test-secret" },
                ...(c.securityType !== undefined ? { securityProfile: { settings: { securityType: c.securityType } } } : {}),
              },
            },
          },
        },
      },
    };
    const pass = syncBootImages(
      {
        release: "4.22.0",
        machineConfiguration: {
          status: {
            managedBootImagesStatus: {
              machineManagers: [{ resource: "machinesets", apiGroup: "machine.openshift.io", selection: { mode: "All" } }],
            },
          },
        },
        machineSets: [machineSet],
        configMap: { data: { stream: JSON.stringify(stream), releaseVersion: "4.22.0" } },
        infra: infra("Azure"),
        clusterVersion: { status: { history: [{ state: "Completed", version: "4.22.0" }], desired: {} } },
        controlPlaneArch: "amd64",
        publishedAmis: new Set(),
        skewEnforcement: true,
        reason: "MAPIMachineSetUpdated",
        now: NOW,
      },
      "4.18.0",
    );
    const outcome = pass.outcomes[0]!.outcome;
    expect(outcome).toBe({ patch: "patched", current: "current", excluded: "excluded", skipped: "skipped" }[c.outcome]);
    if (c.expected) expect(pass.machineSets[0]!.spec.template.spec.providerSpec.value.image).toEqual(c.expected);
  });
});

describe("boot_image_controller_test.go TestResetClusterBootImage: a pass with a skipped MachineSet resets the record", () => {
  it.each(RESET_CLUSTER_BOOT_IMAGE.map((c) => [c.upstream, c] as const))("%s", (_name, c) => {
    const objects: Any[] = [
      {
        kind: "Infrastructure",
        metadata: { name: "cluster" },
        status: { platformStatus: { type: "AWS" }, controlPlaneTopology: "HighlyAvailable" },
      },
      {
        kind: "MachineConfiguration",
        metadata: { name: "cluster", generation: 1 },
        // spec None keeps the operator's seeding out of the way in the case that is not Automatic.
        spec:
          c.mode === "Automatic"
            ? {
                managedBootImages: {
                  machineManagers: [{ resource: "machinesets", apiGroup: "machine.openshift.io", selection: { mode: "All" } }],
                },
              }
            : { bootImageSkewEnforcement: { mode: "None" } },
        status: {
          bootImageSkewEnforcementStatus: { mode: c.mode, automatic: { ocpVersion: c.initial } },
          managedBootImagesStatus: {
            machineManagers: [{ resource: "machinesets", apiGroup: "machine.openshift.io", selection: { mode: "All" } }],
          },
        },
      },
      {
        kind: "ConfigMap",
        metadata: { name: "coreos-bootimages", namespace: "openshift-machine-config-operator" },
        data: {
          releaseVersion: "4.22.0",
          stream: JSON.stringify({ architectures: { x86_64: { images: { aws: { regions: { "us-east-1": { image: "ami-new" } } } } } } }),
        },
      },
      {
        kind: "MachineSet",
        metadata: { name: "owned", namespace: "openshift-machine-api", ownerReferences: [{ kind: "Pool", name: "p" }] },
        spec: {
          template: {
            spec: {
              providerSpec: { value: { kind: "AWSMachineProviderConfig", ami: { id: "ami-old" }, placement: { region: "us-east-1" } } },
            },
          },
        },
      },
    ];
    if (c.history !== null) objects.push({ kind: "ClusterVersion", metadata: { name: "version" }, status: { history: c.history } });
    const pass = syncBootImages(
      {
        release: "4.22.0",
        machineConfiguration: objects[1]!,
        machineSets: [objects[3]!],
        configMap: objects[2]!,
        infra: objects[0]!,
        // The upstream test calls resetClusterBootImage directly; a stable ClusterVersion lets the pass run.
        clusterVersion: { status: { history: [{ state: "Completed", version: "4.22.0" }] } },
        controlPlaneArch: "amd64",
        publishedAmis: new Set(),
        skewEnforcement: true,
        reason: "MAPIMachineSetUpdated",
        now: NOW,
      },
      ocpInstallVersion(c.history ?? undefined),
    );
    expect(pass.record).toEqual({ action: "reset", ocpVersion: c.mode === "Automatic" ? c.expected : pass.record!.ocpVersion });
    // The record is written only in Automatic mode (reconcileMachineConfiguration); elsewhere it stays.
    const view = arrayView(objects as never, "4.22.0", new Date(NOW), true);
    if (c.history !== null && c.history[0]?.state === "Completed") {
      reconcileMachineConfiguration(view);
      const status = objects.find((o) => o.kind === "MachineConfiguration")!.status.bootImageSkewEnforcementStatus;
      expect(status.automatic?.ocpVersion ?? c.initial).toBe(c.mode === "Automatic" ? c.expected : c.initial);
    }
  });
});

describe("boot_image_controller_test.go TestIsClusterStable: the simulated controller defers its pass until the cluster is stable", () => {
  it.each(IS_CLUSTER_STABLE.map((c) => [c.upstream, c] as const))("%s", (_name, c) => {
    const pass = syncBootImages(
      {
        release: "4.22.0",
        machineConfiguration: { status: {} },
        machineSets: [],
        configMap: null,
        infra: infra("AWS"),
        clusterVersion: { status: { history: c.history } },
        controlPlaneArch: "amd64",
        publishedAmis: new Set(),
        skewEnforcement: true,
        reason: "ClusterVersionStable",
        now: NOW,
      },
      "0.0.0",
    );
    expect(pass.ran).toBe(c.stable);
  });
});

describe("platform_helpers.go reconcileGCPProviderSpec: the simulated controller panics where the MCO dereferences a nil GCP image", () => {
  it("no GCP image for the architecture: the pass ends at the panic with Progressing True, and writes no record or patch", () => {
    const pass = syncBootImages(
      {
        release: "4.22.0",
        machineConfiguration: {
          status: {
            managedBootImagesStatus: {
              machineManagers: [{ resource: "machinesets", apiGroup: "machine.openshift.io", selection: { mode: "All" } }],
            },
          },
        },
        machineSets: [
          {
            metadata: { name: "gcp-worker-a", labels: {} },
            spec: {
              template: {
                metadata: { labels: {} },
                spec: { providerSpec: { value: { disks: [{ boot: true, image: "projects/rhcos-cloud/global/images/old" }] } } },
              },
            },
          },
        ],
        configMap: {
          data: { stream: JSON.stringify({ stream: "rhcos-4.22", architectures: { x86_64: { images: {} } } }), releaseVersion: "4.22.0" },
        },
        infra: infra("GCP"),
        clusterVersion: { status: { history: [{ state: "Completed", version: "4.22.0" }], desired: {} } },
        controlPlaneArch: "amd64",
        publishedAmis: new Set(),
        skewEnforcement: true,
        reason: "MAPIMachineSetUpdated",
        now: NOW,
      },
      "4.18.0",
    );
    // As the release-4.22 controller does when run on this stream (docs/openshift.md §15.4, §23.1).
    expect(pass).toMatchObject({ ran: true, outcomes: [], machineSets: [], record: null });
    expect(pass.crashed).toMatch(/^panic: runtime error: reconcileGCPProviderSpec/);
    expect(pass.conditions.find((c) => c.type === "BootImageUpdateProgressing")).toMatchObject({
      status: "True",
      message:
        "Reconciled 0 of 1 MAPI MachineSets | Reconciled 0 of 0 ControlPlaneMachineSets | Reconciled 0 of 0 CAPI MachineSets | Reconciled 0 of 0 CAPI MachineDeployments",
    });
    expect(pass.conditions.find((c) => c.type === "BootImageUpdateDegraded")).toMatchObject({
      status: "False",
      message: "0 Degraded MAPI MachineSets | 0 Degraded ControlPlaneMachineSets | 0 Degraded CAPI MachineSets | 0 CAPI MachineDeployments",
    });
  });
});
