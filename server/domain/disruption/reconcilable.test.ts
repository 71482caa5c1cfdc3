import { describe, expect, it } from "vitest";
import { previewDisruption } from "./engine";
import { DEFAULT_POLICIES, mergeClusterPolicies } from "./policy";
import { BASE_FILES, editedConfig, rendered, type ConfigShape, type MachineConfigDoc } from "./testing";

// An sshkey policy with a visible action, so a passwd change shows in the actions (§4 step 7).
const sshDrains = {
  policies: mergeClusterPolicies({ sshkey: { actions: [{ type: "Drain" }] } }),
  policySource: "spec-merged-with-defaults" as const,
};
const base: ConfigShape = { files: BASE_FILES };
const users = (...list: Record<string, unknown>[]): ConfigShape => ({ ...base, users: list });
const noUsers: ConfigShape = { ...base, users: null };
const core = (fields: Record<string, unknown> = {}) => ({ name: "core", sshAuthorizedKeys: ["ssh-ed25519 AAAA core@example"], ...fields });

describe("passwd reconcilability (§2: validatePasswdChanges / verifyUserFields judge the new config's last user)", () => {
  // [rule, old users, new users, refusal it gives (null: accepted, and the SSH policy applies)]
  const cases: [string, ConfigShape, ConfigShape, RegExp | null][] = [
    [
      "§2: removing a user other than core is accepted (only the new config's users are judged; no user is removed)",
      users(core(), { name: "alice", sshAuthorizedKeys: ["ssh-ed25519 BBBB"] }),
      users(core()),
      null,
    ],
    ["§2: an empty user list is accepted (nothing to verify; the MCO does not remove core)", users(core()), users(), null],
    ["§2: no user list at all is accepted", users(core()), noUsers, null],
    [
      '§2: passwordHash "" is a hash (the MCO tests a non-nil pointer), so core with only that is accepted',
      users(core()),
      users({ name: "core", passwordHash: "" }),
      null,
    ],
    ["§2: a password hash alone, without keys, is accepted", users(core()), users({ name: "core", passwordHash: "$6$salt$hash" }), null],
    [
      "§2: a field other than keys and hash on the last entry is refused even when the old entry had it too",
      users(core({ shell: "/bin/zsh" })),
      users({ name: "core", sshAuthorizedKeys: ["ssh-ed25519 CCCC"], shell: "/bin/zsh" }),
      /only sshAuthorizedKeys and passwordHash may be set, and the last entry also sets shell/,
    ],
    [
      "§2: `groups: []` on core is a non-nil slice, so it counts as set and is refused",
      users(core()),
      users(core({ groups: [] })),
      /also sets groups/,
    ],
    ["§2: a field set to false is a non-nil pointer and is refused", users(core()), users(core({ system: false })), /also sets system/],
    [
      "§2: core with an empty key list and no hash is refused",
      users(core()),
      users({ name: "core", sshAuthorizedKeys: [] }),
      /last user entry must be core with at least one SSH key or a password hash/,
    ],
    [
      "§2: a user other than core anywhere in the new list is refused",
      users(core()),
      users(core(), { name: "alice", sshAuthorizedKeys: ["k"] }),
      /passwd user "alice": only the core user can be changed/,
    ],
    [
      "§2: groups are judged first; with groups changed the users are not looked at",
      users(core()),
      { ...users({ name: "alice" }), groups: [{ name: "admins" }] },
      /^passwd\.groups changed/,
    ],
  ];
  it.each(cases)("%s", (_rule, from, to, refusal) => {
    const result = previewDisruption(rendered(from), rendered(to), sshDrains);
    if (refusal) {
      expect(result.unreconcilable).toHaveLength(1);
      expect(result.unreconcilable[0]).toMatch(refusal);
      expect(result).toMatchObject({ actions: [], reboot: false, drain: false });
    } else {
      expect(result.unreconcilable).toEqual([]);
      expect(result.actions).toEqual([{ type: "Drain" }]);
      expect(result.changes).toContainEqual(expect.objectContaining({ kind: "ssh", name: "sshkey" }));
    }
  });
});

describe("absent and empty lists differ, as in reflect.DeepEqual (§3, diff.ts)", () => {
  type Doc = MachineConfigDoc;
  const edit = (change: (doc: Doc) => void) => editedConfig(base, change);
  const cases: [string, (doc: Doc) => void, (doc: Doc) => void, unknown[], RegExp | null][] = [
    [
      "§3: passwd.users [] against no users sets the passwd flag, so the sshkey policy applies",
      (doc) => delete (doc.spec.config.passwd as { users?: unknown }).users,
      (doc) => (doc.spec.config.passwd.users = []),
      [{ type: "Drain" }],
      null,
    ],
    [
      "§3: passwd.users null is the same as no users",
      (doc) => delete (doc.spec.config.passwd as { users?: unknown }).users,
      (doc) => ((doc.spec.config.passwd as { users?: unknown }).users = null),
      [{ type: "None" }],
      null,
    ],
    [
      "§3, §4 edge case: storage.files [] against none sets the files flag with no file changed: nothing runs, and the warning says why",
      (doc) => delete (doc.spec.config.storage as { files?: unknown }).files,
      (doc) => (doc.spec.config.storage.files = []),
      [],
      /storage\.files went between absent and an empty list/,
    ],
  ];
  it.each(cases)("%s", (_rule, before, after, actions, warning) => {
    const result = previewDisruption(edit(before), edit(after), sshDrains);
    expect(result.unreconcilable).toEqual([]);
    expect(result.actions).toEqual(actions);
    if (warning) expect(result.warnings.join("\n")).toMatch(warning);
  });

  it("§10 step 2, §3: at first boot, systemd.units [] against none reboots, and says why", () => {
    const result = previewDisruption(
      edit((doc) => delete (doc.spec.config.systemd as { units?: unknown }).units),
      edit((doc) => (doc.spec.config.systemd.units = [])),
      { policies: DEFAULT_POLICIES, policySource: "defaults", firstBoot: true },
    );
    expect(result.actions).toEqual([{ type: "Reboot" }]);
    expect(result.changes[0]?.decidedBy).toMatch(/systemd\.units went between absent and an empty list/);
  });
});

describe("irreconcilableValidationOverrides (§2) are read only off first boot (update.go: `if !firstBoot && …`)", () => {
  const disks = { ...base, disks: [{ device: "/dev/sdb" }] };
  const cases: [string, boolean, boolean][] = [
    ["§2: on a running node an override accepts a disks change", false, false],
    ["§2, §10: at first boot the MCD reads no overrides, so the same change is refused", true, true],
  ];
  it.each(cases)("%s", (_rule, firstBoot, refused) => {
    const result = previewDisruption(rendered(base), rendered(disks), {
      policies: DEFAULT_POLICIES,
      policySource: "defaults",
      firstBoot,
      storageOverrides: ["Disks"],
    });
    expect(result.unreconcilable.length > 0).toBe(refused);
    if (refused) expect(result.unreconcilable[0]).toMatch(/storage\.disks changed/);
  });
});
