import { same } from "./diff";
import type { RenderedConfig } from "./machineConfig";

export const FORCE_FILE = "/run/machine-config-daemon-force";
export type StorageOverride = "Disks" | "FileSystems" | "Raid";

/**
 * The reconcilability gate (reference §2): changes the MCO refuses rather than applies. Each
 * returned reason names the refused change; an empty list means the change can be applied.
 */
export function unreconcilableReasons(from: RenderedConfig, to: RenderedConfig, overrides: StorageOverride[] = []): string[] {
  const reasons: string[] = [];
  if (!same(from.passwd.groups, to.passwd.groups)) reasons.push("passwd.groups changed: the MCO does not change groups on existing nodes");
  if (!same(from.passwd.users, to.passwd.users)) {
    for (const user of to.passwd.users) {
      if (user.name !== "core") reasons.push(`passwd user "${String(user.name)}": only the core user can be changed`);
    }
    for (const user of from.passwd.users) {
      if (user.name !== "core" && !to.passwd.users.some((u) => u.name === user.name))
        reasons.push(`passwd user "${String(user.name)}" removed: only the core user can be changed`);
    }
    const oldCore = from.passwd.users.find((u) => u.name === "core") ?? {};
    const newCore = to.passwd.users.find((u) => u.name === "core") ?? {};
    const { sshAuthorizedKeys: _a, passwordHash: _b, ...oldRest } = oldCore;
    const { sshAuthorizedKeys: _c, passwordHash: _d, ...newRest } = newCore;
    if (!same(oldRest, newRest)) reasons.push("passwd user core: only sshAuthorizedKeys and passwordHash can change");
    const last = to.passwd.users.at(-1);
    const keys = last?.sshAuthorizedKeys;
    if (last && !(Array.isArray(keys) && keys.length > 0) && !last.passwordHash) {
      reasons.push("passwd: the last user entry must have at least one SSH key or a password hash");
    }
  }
  if (!same(from.ignitionKernelArguments, to.ignitionKernelArguments))
    reasons.push("Ignition kernelArguments section changed (use spec.kernelArguments)");
  if (!same(from.storage.directories, to.storage.directories)) reasons.push("storage.directories changed");
  if (to.storage.links.some((l) => !from.storage.links.some((o) => same(o, l))))
    reasons.push("storage.links added (only removing links is allowed)");
  const storage: [keyof RenderedConfig["storage"], StorageOverride][] = [
    ["disks", "Disks"],
    ["filesystems", "FileSystems"],
    ["raid", "Raid"],
  ];
  for (const [field, override] of storage) {
    if (!same(from.storage[field], to.storage[field]) && !overrides.includes(override)) {
      reasons.push(
        `storage.${field} changed (allowed only with irreconcilableValidationOverrides.storage: [${override}], and then only new nodes get it)`,
      );
    }
  }
  for (const file of to.files) {
    if (Array.isArray(file.append) && file.append.length > 0) reasons.push(`file ${file.path} uses append, which the MCO refuses`);
    if (file.path === FORCE_FILE) reasons.push(`file ${FORCE_FILE} cannot be written by a MachineConfig`);
  }
  if (from.fips !== to.fips) reasons.push("spec.fips changed: FIPS mode can only be chosen at install time");
  return reasons;
}
