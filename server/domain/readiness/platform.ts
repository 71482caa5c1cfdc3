import { INFRA, pass, problemOf, unknown, warn, type Context, type Draft } from "./model";
import { bareMetalProvisioningOf } from "../skewEnforcement";

/** Checks on the platform: single-node clusters and bare metal. */

export function singleNodeCheck(c: Context): Draft {
  const problem = problemOf(c.s, "Infrastructure");
  if (c.s.topology === "SingleReplica")
    return warn(
      "This is a single-node cluster: the update reboots the only node, so the API and all workloads are down during each reboot. " +
        "Drains are skipped (there is nowhere to move pods), and the MCO does not enforce boot-image skew on single-node clusters (mode None).",
      [INFRA("status.controlPlaneTopology")],
      "Schedule a maintenance window for the downtime and make sure workloads restart cleanly after a reboot.",
    );
  if (!c.s.topology && problem)
    return unknown(`The control-plane topology is not known: ${problem}.`, [INFRA("status.controlPlaneTopology")]);
  return pass(`The control plane is ${c.s.topology ?? "not single-node"}; nodes are updated one pool at a time with drains.`, [
    INFRA("status.controlPlaneTopology"),
  ]);
}

export function bareMetalCheck(c: Context): Draft {
  const problem = problemOf(c.s, "Infrastructure");
  if (c.s.platform === "BareMetal") {
    const provisioning = bareMetalProvisioningOf(c.s);
    const path =
      provisioning.legacyPath === true
        ? `It is on the legacy provisioning path (${provisioning.reason}), so the MCO enforces skew against the install version unless a boot image is acknowledged.`
        : provisioning.legacyPath === false
          ? `It is not on the legacy provisioning path (${provisioning.reason}), so the MCO sets skew enforcement to None.`
          : `Whether it is on the legacy provisioning path is not known (${provisioning.reason}); the MCO then assumes it is and enforces skew against the install version.`;
    return warn(
      `This is a bare-metal cluster: the MCO does not manage boot images here, so new hosts boot the image the provisioning path serves. ${path}`,
      [
        INFRA("status.platformStatus.type"),
        { kind: "Provisioning", name: "provisioning-configuration", field: "spec.provisioningOSDownloadURL" },
      ],
      provisioning.legacyPath === false
        ? "Keep the image the provisioning path serves current: nothing checks its age."
        : "Keep the provisioning path's RHCOS image current, and acknowledge the boot image in Fleetskew so the MCO compares the real one.",
    );
  }
  if (!c.s.platform && problem) return unknown(`The platform is not known: ${problem}.`, [INFRA("status.platformStatus.type")]);
  return pass(`The platform is ${c.s.platform ?? "not bare metal"}.`, [INFRA("status.platformStatus.type")]);
}
