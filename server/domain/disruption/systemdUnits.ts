/**
 * The unit suffixes systemd knows. Ignition's `Unit.Validate` → `validateName` (coreos/ignition v2
 * config/v3_5/types, ./validateIgnition.ts) rejects a unit named otherwise, and the API's
 * NodeDisruptionPolicyServiceName rule a service name (docs/openshift.md §8, ./policy.ts): the same twelve.
 */
export const SYSTEMD_UNIT_SUFFIXES: readonly string[] = [
  ".service",
  ".socket",
  ".device",
  ".mount",
  ".automount",
  ".swap",
  ".target",
  ".path",
  ".timer",
  ".snapshot",
  ".slice",
  ".scope",
];
