import { describe, expect, it } from "vitest";
import { diffConfigs } from "../disruption/diff";
import { closestFilePolicy, previewDisruption } from "../disruption/engine";
import { MachineConfigError, readMachineConfig, type RenderedConfig } from "../disruption/machineConfig";
import { DEFAULT_POLICIES, type Action, type FilePolicy } from "../disruption/policy";
import { unreconcilableReasons, type StorageOverride } from "../disruption/reconcilable";

/**
 * Cases transcribed from the MCO's unit tests for the daemon's update decision
 * (openshift/machine-config-operator release-4.22 at 9027c94cde45: pkg/daemon/update_test.go and
 * pkg/controller/common/reconcile_test.go), each named by its upstream test and case, run against
 * Fleetskew's disruption preview. docs/openshift.md §23 counts them.
 */
type Ign = Record<string, any>;
const file = (path: string, text: string) => ({ path, mode: 420, contents: { source: `data:,${encodeURIComponent(text)}` } });
/** helpers.NewMachineConfigExtended: files, units, core's SSH keys, FIPS, kernel arguments, kernel type, OS image. */
function mc(parts: { files?: Ign[]; keys?: string[]; kargs?: string[]; os?: string; fips?: boolean; ign?: Ign; annotations?: Record<string, string> } = {}): RenderedConfig {
  return readMachineConfig({
    apiVersion: "machineconfiguration.openshift.io/v1",
    kind: "MachineConfig",
    metadata: { name: "test", annotations: parts.annotations },
    spec: {
      config: {
        ignition: { version: "3.5.0" },
        storage: { files: parts.files ?? [] },
        passwd: parts.keys ? { users: [{ name: "core", sshAuthorizedKeys: parts.keys }] } : {},
        ...parts.ign,
      },
      kernelArguments: parts.kargs ?? [],
      kernelType: "default",
      fips: parts.fips ?? false,
      osImageURL: parts.os ?? "dummy://",
    },
  });
}

/**
 * ctrlcommon.NewIgnFile contents of TestCalculatePostConfigChangeAction. registries.conf's are written
 * as TOML comments here ("# registries content 1"), because Fleetskew also decides the drain, which
 * parses the file as TOML; the upstream test calls only the action function.
 */
const F = {
  pullsecret1: file("/var/lib/kubelet/config.json", "kubelet conf 1\n"),
  pullsecret2: file("/var/lib/kubelet/config.json", "kubelet conf 2\n"),
  registries1: file("/etc/containers/registries.conf", "# registries content 1\n"),
  registries2: file("/etc/containers/registries.conf", "# registries content 2\n"),
  randomfile1: file("/etc/random-reboot-file", "test\n"),
  randomfile2: file("/etc/random-reboot-file", "test 2\n"),
  kubeletCA1: file("/etc/kubernetes/kubelet-ca.crt", "kubeletCA1\n"),
  kubeletCA2: file("/etc/kubernetes/kubelet-ca.crt", "kubeletCA2\n"),
  policy1: file("/etc/containers/policy.json", "policy1"),
  policy2: file("/etc/containers/policy.json", "policy2"),
  gpg1: file("/etc/machine-config-daemon/no-reboot/containers-gpg.pub", "containers-gpg1"),
  gpg2: file("/etc/machine-config-daemon/no-reboot/containers-gpg.pub", "containers-gpg2"),
  crio1: file("/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt", "restart-crio1"),
  crio2: file("/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt", "restart-crio2"),
};
const REBOOT: Action[] = [{ type: "Reboot" }];
const NONE: Action[] = [{ type: "None" }];
const RELOAD: Action[] = [{ type: "Reload", reload: { serviceName: "crio.service" } }];
const RESTART: Action[] = [{ type: "Restart", restart: { serviceName: "crio.service" } }];
const P = "pkg/daemon/update_test.go TestCalculatePostConfigChangeAction";

const POST_CONFIG_CHANGE_ACTION: [string, RenderedConfig, RenderedConfig, Action[]][] = [
  [`${P} case#0 "a normal file change is reboot"`, mc({ files: [F.randomfile1] }), mc({ files: [F.randomfile2] }), REBOOT],
  [`${P} case#1 "a pull secret change is none"`, mc({ files: [F.pullsecret1] }), mc({ files: [F.pullsecret2] }), NONE],
  [`${P} case#2 "a SSH key change is none"`, mc({ keys: ["key1"] }), mc({ keys: ["key2"] }), NONE],
  [`${P} case#3 "a registries change is reload"`, mc({ files: [F.registries1] }), mc({ files: [F.registries2] }), RELOAD],
  [`${P} case#4 "a kubelet CA change is none"`, mc({ files: [F.kubeletCA1] }), mc({ files: [F.kubeletCA2] }), NONE],
  [`${P} case#5 "a registries change (reload) overwrites pull secret (none)"`, mc({ files: [F.registries1, F.pullsecret1] }), mc({ files: [F.registries2, F.pullsecret2] }), RELOAD],
  [`${P} case#6 "a osImage change (reboot) overwrites registries (reload) and SSH keys (none)"`, mc({ files: [F.registries1], keys: ["key1"] }), mc({ files: [F.registries2], keys: ["key2"], os: "dummy1://" }), REBOOT],
  [`${P} case#7 "adding a pull secret is none"`, mc({ files: [F.registries1], keys: ["key1"] }), mc({ files: [F.registries1, F.pullsecret2], keys: ["key1"] }), NONE],
  [`${P} case#8 "removing a registries is crio reload"`, mc({ files: [F.randomfile1, F.registries1], keys: ["key1"] }), mc({ files: [F.randomfile1], keys: ["key1"] }), RELOAD],
  [`${P} case#9 "mixed test - final should be reboot due to kargs changes"`, mc({ files: [F.registries1], keys: ["key1"] }), mc({ files: [F.pullsecret2, F.kubeletCA1], keys: ["key2"], kargs: ["karg1"] }), REBOOT],
  [`${P} case#10 "updating policy.json is crio reload"`, mc({ files: [F.policy1] }), mc({ files: [F.policy2] }), RELOAD],
  [`${P} case#11 "updating containers-gpg.pub is crio reload"`, mc({ files: [F.gpg1] }), mc({ files: [F.gpg2] }), RELOAD],
  [`${P} case#12 "updating openshift-config-user-ca-bundle.crt is crio restart"`, mc({ files: [F.crio1] }), mc({ files: [F.crio2] }), RESTART],
  [`${P} case#13 "openshift-config-user-ca-bundle.crt restart overrides a following crio reload"`, mc({ files: [F.crio1] }), mc({ files: [F.crio2, F.gpg1] }), RESTART],
];

describe("pkg/daemon/update_test.go TestCalculatePostConfigChangeAction: the legacy rules (first boot)", () => {
  it.each(POST_CONFIG_CHANGE_ACTION)("%s", (_name, from, to, actions) => {
    const p = previewDisruption(from, to, { policies: DEFAULT_POLICIES, policySource: "defaults", firstBoot: true });
    expect(p.path).toBe("legacy");
    expect(p.actions).toEqual(actions);
  });
});

const C = "pkg/daemon/update_test.go TestFindClosestFilePolicyPathMatch";
const pol = (path: string, actions: Action[]): FilePolicy => ({ path, actions });
const FIND_CLOSEST: [string, string, FilePolicy[], Action[] | null][] = [
  [`${C} case#0 "a file with no policies returns no actions"`, "/etc/mco/test", [pol("/etc/example", NONE)], null],
  [`${C} case#1 "a file with a valid policy returns the correct actions"`, "/etc/mco/test1", [pol("/etc/mco/test1", NONE), pol("/etc/mco/test2", REBOOT)], NONE],
  [`${C} case#2 "multiple path policies: the closest match"`, "/etc/mco/f1/f2/example", [pol("/etc/mco/f1", NONE), pol("/etc/mco/f1/f2", REBOOT), pol("/etc/mco/f1/f2/f3", RELOAD)], REBOOT],
  [`${C} case#3 "multiple path policies: an exact match"`, "/etc/mco/f1/f2/f3", [pol("/etc/mco/f1", NONE), pol("/etc/mco/f1/f2", REBOOT), pol("/etc/mco/f1/f2/f3", RELOAD)], RELOAD],
  [`${C} case#4 "a partial parent dir match but no dir match returns no action"`, "/etc/mco/f1/f2/f3", [pol("/etc/mco/f1/test", NONE), pol("/etc/mco/f1/f2/test", REBOOT), pol("/etc/mco/f1/f2/f3/f4", RELOAD)], null],
];

describe("pkg/daemon/update_test.go TestFindClosestFilePolicyPathMatch: closestFilePolicy", () => {
  it.each(FIND_CLOSEST)("%s", (_name, path, policies, actions) => {
    expect(closestFilePolicy(policies, path)?.actions ?? null).toEqual(actions);
  });
});

const D = "pkg/daemon/update_test.go TestMachineConfigDiff";
const R = "pkg/daemon/update_test.go TestReconcilableDiff";
const ten = Array.from({ length: 10 }, (_, i) => file(`/etc/config${i}`, `config${i}`));
const NEW_OS = "quay.io/example/foo@sha256:b5bb9d8014a0f9b1d61e21e796d78dccdf1352f23cd32812f4850b878ae4944c";
const ocl = (image: string, base: RenderedConfig["osImageURL"]) =>
  mc({ os: image, annotations: { "machineconfiguration.openshift.io/ocl-osimageurl": image, "machineconfiguration.openshift.io/original-osimageurl": base } });
type Flags = Partial<Record<"osUpdate" | "passwd" | "files" | "units" | "kargs" | "revertFromOCL", boolean>>;
const DIFFS: [string, RenderedConfig, RenderedConfig, Flags][] = [
  [`${D} "two empty configs are no change"`, mc(), mc(), { osUpdate: false, passwd: false, files: false, units: false }],
  [`${D} "a new osImageURL is an OS update"`, mc(), mc({ os: NEW_OS }), { osUpdate: true }],
  [`${D} "nil and empty kernel arguments are no change"`, mc({ kargs: [] }), mc(), { kargs: false }],
  [`${D} "SSH key changes recognized - Empty MC"`, mc(), mc({ keys: ["1234"] }), { passwd: true }],
  [`${D} "SSH key changes recognized - New Key"`, mc({ keys: ["5678"] }), mc({ keys: ["1234"] }), { passwd: true }],
  [`${D} "PasswordHash changes recognized - Empty MC"`, mc(), mc({ ign: { passwd: { users: [{ name: "core", passwordHash: "testpass" }] } } }), { passwd: true }],
  [`${D} "PasswordHash changes recognized - Password Change"`, mc({ ign: { passwd: { users: [{ name: "core", passwordHash: "newtestpass" }] } } }), mc({ ign: { passwd: { users: [{ name: "core", passwordHash: "testpass" }] } } }), { passwd: true }],
  [`${D} "Non-OCL OS update"`, mc(), mc({ os: NEW_OS }), { osUpdate: true, revertFromOCL: false }],
  [`${D} "OCL enabled no OS update"`, ocl("image-pullspec", "dummy://"), ocl("image-pullspec", "dummy://"), { osUpdate: false, revertFromOCL: false }],
  [`${D} "OCL enabled with OS update"`, ocl("image-pullspec", "dummy://"), ocl("other-pullspec", "dummy://"), { osUpdate: true, revertFromOCL: false }],
  [`${D} "OCL enabled but not rolled out yet"`, mc({ os: NEW_OS }), ocl("image-pullspec", NEW_OS), { osUpdate: true, revertFromOCL: false }],
  [`${D} "Revert to non-OCL"`, ocl("image-pullspec", NEW_OS), mc({ os: NEW_OS }), { osUpdate: true, revertFromOCL: true }],
  [`${R} "add file"`, mc({ files: ten }), mc({ files: [...ten, file("/etc/config11", "config11")] }), { osUpdate: false, passwd: false, units: false, files: true }],
  [`${R} "remove all files"`, mc({ files: ten }), mc({ files: [] }), { osUpdate: false, passwd: false, units: false, files: true }],
  [`${R} "os update"`, mc({ files: ten }), mc({ files: ten, os: "example.com/rhel-coreos:new" }), { osUpdate: true, passwd: false, units: false, files: false }],
];

describe("pkg/daemon/update_test.go TestMachineConfigDiff and TestReconcilableDiff: the diff's flags", () => {
  it.each(DIFFS)("%s", (_name, from, to, flags) => {
    expect(diffConfigs(from, to)).toMatchObject(flags);
  });
});

const I = "pkg/controller/common/reconcile_test.go TestIsRenderedConfigReconcilable";
const S = "pkg/controller/common/reconcile_test.go TestReconcilableSSH";
const refused = (from: RenderedConfig, to: RenderedConfig, overrides: StorageOverride[] = []) => unreconcilableReasons(from, to, overrides).length > 0;
const disk = { storage: { disks: [{ device: "/one" }] } };
const fs = { storage: { filesystems: [{ device: "/dev/sda1", format: "ext4", path: "/foo/bar" }] } };
const raid = { storage: { raid: [{ name: "data", level: "stripe", devices: ["/dev/vda", "/dev/vdb"] }] } };
const users = (...u: Ign[]) => ({ passwd: { users: u } });
const RECONCILABLE: [string, () => boolean, boolean][] = [
  [`${I} "Ignition": version 4.0.0 is refused`, () => {
    try {
      readMachineConfig({ apiVersion: "machineconfiguration.openshift.io/v1", kind: "MachineConfig", spec: { config: { ignition: { version: "4.0.0" } } } });
      return false;
    } catch (e) {
      return e instanceof MachineConfigError;
    }
  }, true],
  [`${I} "Ignition": the current version is accepted`, () => refused(mc(), mc()), false],
  [`${I} "Disk": a disks change is refused`, () => refused(mc({ ign: disk }), mc()), true],
  [`${I} "Disk": allowed with the Disks override`, () => refused(mc({ ign: disk }), mc(), ["Disks"]), false],
  [`${I} "Disk": matching disks are accepted`, () => refused(mc({ ign: disk }), mc({ ign: disk })), false],
  [`${I} "Filesystem": a filesystems change is refused`, () => refused(mc({ ign: fs }), mc({ ign: disk })), true],
  [`${I} "Filesystem": allowed with the FileSystems override`, () => refused(mc({ ign: fs }), mc(), ["FileSystems"]), false],
  [`${I} "Filesystem": matching filesystems are accepted`, () => refused(mc({ ign: fs }), mc({ ign: fs })), false],
  [`${I} "Raid": a raid change is refused`, () => refused(mc({ ign: raid }), mc()), true],
  [`${I} "Raid": allowed with the Raid override`, () => refused(mc({ ign: raid }), mc(), ["Raid"]), false],
  [`${I} "Raid": matching raid is accepted`, () => refused(mc({ ign: raid }), mc({ ign: raid })), false],
  [`${I} "PasswdGroups": no change is accepted`, () => refused(mc(), mc()), false],
  [`${I} "PasswdGroups": adding a group is refused`, () => refused(mc(), mc({ ign: { passwd: { groups: [{ name: "testGroup" }] } } })), true],
  [`${I} "KernelArguments": an Ignition kernelArguments change is refused`, () => refused(mc(), mc({ ign: { kernelArguments: { shouldExist: ["foo=bar"], shouldNotExist: ["baz=foo"] } } })), true],
  [`${I} "LuksClevisTang": a luks change is accepted`, () => refused(mc({ ign: { storage: { luks: [{ name: "luks-tang", device: "/dev/sdb", clevis: { tang: [{ url: "https://tang.example.com" }] } }] } } }), mc()), false],
  [`${I} "FIPS": a FIPS change is refused`, () => refused(mc(), mc({ fips: true })), true],
  [`${I} "forcefile": writing /run/machine-config-daemon-force is refused`, () => refused(mc(), mc({ files: [file("/run/machine-config-daemon-force", "")] })), true],
  [`${S} "SSH": updating core's keys is accepted`, () => refused(mc(), mc({ ign: users({ name: "core", sshAuthorizedKeys: ["5678", "abc"] }) })), false],
  [`${S} "SSH": a user other than core is refused`, () => refused(mc({ ign: users({ name: "core", sshAuthorizedKeys: ["1234"] }) }), mc({ ign: users({ name: "another user", sshAuthorizedKeys: ["5678"] }) })), true],
  [`${S} "SSH": another field of core (homeDir) is refused`, () => refused(mc({ ign: users({ name: "core", sshAuthorizedKeys: ["1234"] }) }), mc({ ign: users({ name: "core", sshAuthorizedKeys: ["5678"], homeDir: "somedir" }) })), true],
  [`${S} "SSH": adding a second user is refused`, () => refused(mc({ ign: users({ name: "core", sshAuthorizedKeys: ["1234"] }) }), mc({ ign: users({ name: "core", sshAuthorizedKeys: ["5678"], homeDir: "somedir" }, { name: "some user", sshAuthorizedKeys: ["5678"] }) })), true],
  [`${S} "SSH": removing core's only key is refused`, () => refused(mc({ ign: users({ name: "core", sshAuthorizedKeys: ["1234"] }) }), mc({ ign: users({ name: "core", sshAuthorizedKeys: [] }) })), true],
  [`${S} "SSH": no users at all is accepted`, () => refused(mc({ ign: users({ name: "core", sshAuthorizedKeys: ["1234"] }) }), mc()), false],
];

describe("pkg/controller/common/reconcile_test.go: isConfigReconcilable", () => {
  it.each(RECONCILABLE)("%s", (_name, run, expected) => {
    expect(run()).toBe(expected);
  });
});
