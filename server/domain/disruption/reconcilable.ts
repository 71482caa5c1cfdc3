import { same } from "./diff";
import { entries, type RenderedConfig } from "./machineConfig";
import { ignitionValidationError } from "./validateIgnition";

export const FORCE_FILE = "/run/machine-config-daemon-force";
export type StorageOverride = "Disks" | "FileSystems" | "Raid";

/**
 * The Ignition PasswdUser fields besides name, sshAuthorizedKeys and passwordHash (config v3_5
 * types/schema.go). verifyUserFields compares the user with those three cleared against an empty
 * PasswdUser, so any of these set — a pointer to false or "" included, and `groups: []`, which is
 * a non-nil slice — is refused. A key Ignition does not know is dropped when the MCO parses the
 * config, so it is not a field here.
 */
const OTHER_USER_FIELDS = [
  "gecos",
  "groups",
  "homeDir",
  "noCreateHome",
  "noLogInit",
  "noUserGroup",
  "primaryGroup",
  "shell",
  "shouldExist",
  "system",
  "uid",
] as const;

const isSet = (v: unknown) => v !== null && v !== undefined;

/**
 * validatePasswdChanges and verifyUserFields (MCO pkg/controller/common/reconcile.go; docs/openshift.md §2).
 * Only the new config is judged: every user in it must be core, and the LAST entry must be core with
 * at least one SSH key or a password hash (any non-nil hash, "" included) and nothing else. So
 * removing users, and an empty or absent user list, are accepted — the MCO does not remove users.
 * Like the MCO, groups are judged first and the users only when the groups are unchanged.
 */
function passwdReasons(from: RenderedConfig, to: RenderedConfig): string[] {
  if (same(from.passwd, to.passwd)) return [];
  if (!same(from.passwd.groups, to.passwd.groups)) return ["passwd.groups changed: the MCO does not change groups on existing nodes"];
  if (same(from.passwd.users, to.passwd.users)) return [];
  const users = entries(to.passwd.users);
  const others = users.filter((u) => u.name !== "core");
  if (others.length > 0)
    return [
      `passwd ${others.length === 1 ? "user" : "users"} ${others.map((u) => JSON.stringify(String(u.name ?? ""))).join(", ")}: only the core user can be changed`,
    ];
  const last = users.at(-1);
  if (!last) return [];
  const keys = last.sshAuthorizedKeys;
  if (!isSet(last.passwordHash) && !(Array.isArray(keys) && keys.length > 0))
    return ["passwd: the last user entry must be core with at least one SSH key or a password hash (the MCO checks only the last entry)"];
  const extra = OTHER_USER_FIELDS.filter((f) => isSet(last[f]));
  if (extra.length > 0)
    return [`passwd user core: only sshAuthorizedKeys and passwordHash may be set, and the last entry also sets ${extra.join(", ")}`];
  return [];
}

/**
 * The reconcilability gate (docs/openshift.md §2, reconcile.go `isReconcilable`: `ValidateIgnition`, then
 * `isConfigReconcilable`): changes the MCO refuses rather than applies. Each
 * returned reason names the refused change; an empty list means the change can be applied.
 */
export function unreconcilableReasons(from: RenderedConfig, to: RenderedConfig, overrides: StorageOverride[] = []): string[] {
  // isReconcilable: ValidateIgnition on the new config first; an invalid config is refused on that alone.
  const invalid = ignitionValidationError(to);
  if (invalid) return [invalid];
  const reasons: string[] = passwdReasons(from, to);
  if (!same(from.ignitionKernelArguments, to.ignitionKernelArguments))
    reasons.push("Ignition kernelArguments section changed (use spec.kernelArguments)");
  if (!same(from.storage.directories, to.storage.directories)) reasons.push("storage.directories changed");
  // isConfigReconcilable: any change to links is refused unless the new list is empty (removing every link).
  if (!same(from.storage.links, to.storage.links) && entries(to.storage.links).length !== 0)
    reasons.push("storage.links changed (the MCO accepts a change to links only when the new config has none)");
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
  for (const file of entries(to.files)) {
    if (Array.isArray(file.append) && file.append.length > 0) reasons.push(`file ${file.path} uses append, which the MCO refuses`);
    if (file.path === FORCE_FILE) reasons.push(`file ${FORCE_FILE} cannot be written by a MachineConfig`);
  }
  if (from.fips !== to.fips) reasons.push("spec.fips changed: FIPS mode can only be chosen at install time");
  return reasons;
}
