import { describe, expect, it } from "vitest";
import { mcoDecision } from "../bootImages";
import { assessSkew } from "../clusterSkew";
import { installVersion } from "../skew";
import type { ClusterSnapshot } from "../snapshot";
import { cond, healthyCluster, versionFacts } from "../testing/snapshots";
import {
  ARCH_FROM_MACHINE_SET,
  AZURE_TEST_STREAM,
  RECONCILE_AZURE,
  RESET_CLUSTER_BOOT_IMAGE,
  SKEW_GUARD,
  SYNC_MACHINE_CONFIGURATION,
} from "./bootImageCases";
import { type MachineSetInput, architectureOf } from "../bootImageInputs";
import { extractBootImage } from "../bootImageReference";
import { effectiveEnforcement } from "../skewEnforcement";

/** The MCO's own boot-image unit tests (bootImageCases.ts), run against Fleetskew's predictions. */
const GO_ARCH: Record<string, string> = { x86_64: "amd64", aarch64: "arm64", ppc64le: "ppc64le", s390x: "s390x" };

describe("pkg/operator/sync_test.go TestSyncMachineConfiguration: the mode Fleetskew predicts at 4.22", () => {
  it.each(SYNC_MACHINE_CONFIGURATION.map((c) => [c.upstream, c] as const))("%s", (_name, c) => {
    const spec = c.specManagers?.find((m) => m.resource === "machinesets")?.selection.mode ?? null;
    const s: ClusterSnapshot = healthyCluster({
      platform: c.platform,
      topology: c.topology ?? "HighlyAvailable",
      version: versionFacts(c.history.map((h) => ({ ...h, startedTime: null, completionTime: null }))),
      managedMachineSets: { spec, status: null, specEmptyList: Array.isArray(c.specManagers) && c.specManagers.length === 0 },
      enforcement: {
        served: true,
        spec: c.specSkew
          ? { mode: c.specSkew.mode, manual: c.specSkew.mode === "Manual" ? { ...c.specSkew.manual, rhcosVersion: null } : null }
          : null,
        status: null,
      },
      bareMetalProvisioning:
        c.provisioningURL === undefined
          ? { legacyPath: false, reason: "the cluster has no Provisioning provisioning-configuration" }
          : { legacyPath: c.provisioningURL !== "", reason: "read" },
      machineSets: [],
    });
    const predicted = effectiveEnforcement(s, "4.22.0");
    expect(predicted.mode).toBe(c.expectedSkew.mode);
    // The operator seeds Automatic with the install version; the controller's first clean pass then
    // records the release, which is what Fleetskew predicts. Manual and None are final as written.
    if (c.expectedSkew.mode === "Manual") expect(predicted.value?.ocpVersion).toBe(c.expectedSkew.manual.ocpVersion);
    if (c.expectedSkew.mode === "Automatic") expect(installVersion(c.history)).toBe(c.expectedSkew.automatic.ocpVersion);
  });
});

describe("pkg/operator/status_test.go TestCheckBootImageSkewUpgradeableGuard: the block Fleetskew reads from the cluster's status", () => {
  it.each(SKEW_GUARD.map((c) => [c.upstream, c] as const))("%s", (_name, c) => {
    const release = c.gate === false ? "4.21.0" : "4.22.0";
    const version = { ...versionFacts(c.history.map((h) => ({ ...h, startedTime: null, completionTime: null }))), current: release };
    const status = c.status;
    const s = healthyCluster({
      version,
      machineConfigOperator: null,
      bootImageConditions: (status?.conditions ?? []).map((x) => cond(x.type, x.status, null, x.message ?? null)),
      enforcement: {
        served: status !== null,
        spec: null,
        status: status
          ? {
              mode: status.mode,
              automatic: status.automatic
                ? { ocpVersion: status.automatic.ocpVersion ?? null, rhcosVersion: status.automatic.rhcosVersion ?? null }
                : null,
              manual: status.manual
                ? {
                    mode: status.manual.mode,
                    ocpVersion: status.manual.ocpVersion ?? null,
                    rhcosVersion: status.manual.rhcosVersion ?? null,
                  }
                : null,
            }
          : null,
      },
    });
    expect(assessSkew(s, release).block?.message ?? null).toBe(c.message);
  });
});

describe("boot_image_controller_test.go TestGetArchFromMachineSet: architectureOf", () => {
  it.each(ARCH_FROM_MACHINE_SET.map((c) => [c.upstream, c] as const))("%s", (_name, c) => {
    const r = architectureOf(
      { name: "test-machineset", annotations: c.annotations },
      { multiArch: c.multiArch, controlPlaneArchitecture: "arm64" },
    );
    if (c.arch === null) expect("arch" in r).toBe(false);
    else
      expect(r).toEqual(c.arch === "control-plane" ? { arch: "aarch64", source: "control-plane" } : { arch: c.arch, source: "annotation" });
  });
});

describe("boot_image_controller_test.go TestReconcileAzureProviderSpec: what the MCO does with the MachineSet", () => {
  it.each(RECONCILE_AZURE.map((c) => [c.upstream, c] as const))("%s", (_name, c) => {
    const stream = structuredClone(AZURE_TEST_STREAM) as Record<string, any>;
    const extensions = stream.architectures.x86_64["rhel-coreos-extensions"];
    if (c.stream === "no-marketplace") delete extensions.marketplace;
    if (c.stream === "no-azure-marketplace") delete extensions.marketplace.azure;
    const ms: MachineSetInput = {
      name: "test-machineset",
      annotations: { "capacity.cluster-autoscaler.kubernetes.io/labels": `kubernetes.io/arch=${GO_ARCH[c.arch]}` },
      providerSpec: {
        kind: "AzureMachineProviderSpec",
        image: c.image,
        ...(c.securityType !== undefined ? { securityProfile: { settings: { securityType: c.securityType } } } : {}),
      },
    };
    const decision = mcoDecision(ms, extractBootImage(ms.providerSpec), {
      stream,
      releaseVersion: "4.22.0",
      history: [{ state: "Completed", version: "4.22.0" }],
      platform: "Azure",
      machineManagers: [{ resource: "machinesets", apiGroup: "machine.openshift.io", selection: { mode: "All" } }],
    });
    const expected = { patch: "update", current: "update", excluded: "exclude", skipped: "skip" }[c.outcome];
    expect(decision.action).toBe(expected);
  });
});

describe("boot_image_controller_test.go TestResetClusterBootImage: the install version the record falls back to", () => {
  it.each(RESET_CLUSTER_BOOT_IMAGE.map((c) => [c.upstream, c] as const))("%s", (_name, c) => {
    const after = c.mode === "Automatic" ? installVersion(c.history ?? []) : c.initial;
    expect(after).toBe(c.expected);
  });
});
