import { describe, expect, it } from "vitest";
import { previewDisruption } from "./engine";
import { duplicateEntries } from "./ignitionDuplicates";
import { MachineConfigError, readMachineConfig } from "./machineConfig";
import { base, defaults, editedConfig, machineConfigDoc, rendered, withFiles } from "./testing";

/**
 * coreos/ignition config/validate ValidateDups, run by the spec-3 parser inside the MCO's
 * ParseAndConvertConfig (pkg/controller/common/helpers.go, release-4.22): a second entry with a key
 * already seen makes the config invalid, and the daemon refuses the update at parsing.
 */
describe("ParseAndConvertConfig refuses duplicate entries (Ignition ValidateDups)", () => {
  const refused = (change: (doc: ReturnType<typeof machineConfigDoc>) => void) => {
    const doc = machineConfigDoc(withFiles({ "/etc/motd": "hi\n" }));
    change(doc);
    return () => readMachineConfig(doc, "new");
  };

  it("two files at one path are refused, naming the second entry as Ignition does", () => {
    const read = refused((doc) => doc.spec.config.storage.files.push({ ...doc.spec.config.storage.files[0]! }));
    expect(read).toThrow(MachineConfigError);
    expect(read).toThrow(
      "new cannot be read as the MCO reads it: failed to parse Ignition config: parsing Ignition config spec v3 failed with error: config is not valid\nReport: error at $.storage.files.6: duplicate entry defined",
    );
  });

  it("files, directories and links share one key space (Storage.MergedKeys): a directory and a file at one path collide", () => {
    const doc = machineConfigDoc(withFiles({ "/etc/motd": "hi\n" }), "rendered-x");
    const config = { ...doc.spec.config, storage: { ...doc.spec.config.storage, directories: [{ path: "/etc/motd" }] } };
    expect(duplicateEntries(config)).toContain("$.storage.files.5");
  });

  it("a unit twice, a dropin twice, an SSH key twice and one kernel argument in both lists are each refused", () => {
    const cases: [string, (doc: ReturnType<typeof machineConfigDoc>) => void][] = [
      ["$.systemd.units.1", (d) => d.spec.config.systemd.units.push({ name: "a.service" }, { name: "a.service" })],
      [
        "$.systemd.units.0.dropins.1",
        (d) =>
          d.spec.config.systemd.units.push({
            name: "a.service",
            dropins: [
              { name: "10.conf", contents: "" },
              { name: "10.conf", contents: "x" },
            ],
          }),
      ],
      [
        "$.passwd.users.0.sshAuthorizedKeys.1",
        (d) => (d.spec.config.passwd.users![0]!.sshAuthorizedKeys = ["ssh-ed25519 A", "ssh-ed25519 A"]),
      ],
      [
        "$.kernelArguments.shouldNotExist.0",
        (d) => Object.assign(d.spec.config, { kernelArguments: { shouldExist: ["quiet"], shouldNotExist: ["quiet"] } }),
      ],
    ];
    for (const [at, change] of cases) expect(refused(change)).toThrow(`error at ${at}: duplicate entry defined`);
  });

  it("a config without duplicates reads as before, and the preview of a change still runs", () => {
    const from = rendered(base);
    const to = editedConfig(withFiles({ "/etc/motd": "hi\n" }), () => {});
    expect(duplicateEntries(machineConfigDoc(base).spec.config)).toEqual([]);
    expect(previewDisruption(from, to, defaults).actions).toEqual([{ type: "Reboot" }]);
  });

  it("spec 2.2 is deduplicated by the MCO before conversion (removeIgnDuplicateFilesUnitsUsers), so duplicates there are not refused", () => {
    const doc = {
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "MachineConfig",
      metadata: { name: "legacy" },
      spec: {
        config: {
          ignition: { version: "2.2.0" },
          storage: {
            files: [
              { filesystem: "root", path: "/etc/motd", contents: { source: "data:,a" } },
              { filesystem: "root", path: "/etc/motd", contents: { source: "data:,b" } },
            ],
          },
        },
      },
    };
    expect(readMachineConfig(doc).files).toHaveLength(1);
  });
});
