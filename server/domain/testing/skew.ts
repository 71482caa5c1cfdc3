import type { ClusterSnapshot, EnforcementValue } from "../snapshot";
import { prodEast } from "./snapshots";

/** Helpers for the skew tests: the MCO's documentation link and message, a Manual spec, prod-east with one change. */
export const docs = (minor: string) =>
  `https://docs.redhat.com/en/documentation/openshift_container_platform/${minor}/html/machine_configuration/mco-update-boot-skew-mgmt`;
export const ocpMessage = (v: string, minor: string) =>
  `Upgrades have been disabled because the cluster is using OCP boot image version ${v}, which is below the minimum required version 4.13.0. To enable upgrades, please update your boot images or disable boot image skew enforcement by following the documentation at ${docs(minor)}`;

export const manualSpec = (value: Partial<EnforcementValue>, mode = "OCPVersion"): ClusterSnapshot["enforcement"] => ({
  served: false,
  spec: { mode: "Manual", manual: { mode, ocpVersion: value.ocpVersion ?? null, rhcosVersion: value.rhcosVersion ?? null } },
  status: null,
});

/** prod-east at 4.19.10 with one change. */
export const variant = (overrides: Partial<ClusterSnapshot>): ClusterSnapshot => ({ ...prodEast(), ...overrides });
