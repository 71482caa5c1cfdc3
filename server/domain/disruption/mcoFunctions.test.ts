import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { previewDisruption } from "./engine";
import { readMachineConfig } from "./machineConfig";
import { mergeMachineConfigs } from "./merge";
import { DEFAULT_POLICIES } from "./policy";
import { registriesChangeUnsafeReason } from "./registries";
import { BASE_FILES, machineConfigDoc, rendered } from "./testing";

/** The disruption preview against the MCO functions it follows, each test naming one. */
const policy = { policies: DEFAULT_POLICIES, policySource: "defaults" as const };
const REGISTRIES = "/etc/containers/registries.conf";
const gz = (text: string) => `data:;base64,${gzipSync(text).toString("base64")}`;
const worker = (name: string, files: unknown[]) => {
  const doc = machineConfigDoc({ osImageURL: "", kernelType: "" }, name);
  (doc.metadata as Record<string, unknown>).labels = { "machineconfiguration.openshift.io/role": "worker" };
  (doc.spec.config.storage as Record<string, unknown>).files = files;
  return readMachineConfig(doc);
};

describe("helpers.go MergeMachineConfigs → ignitionMergeSetFilesDefaultCompression: a later uncompressed file clears an earlier gzip", () => {
  const base = BASE_FILES[REGISTRIES]!;
  const gzipBase = worker("00-worker", [{ path: REGISTRIES, mode: 420, contents: { source: gz(base), compression: "gzip" } }]);
  const override = (text: string) =>
    worker("99-worker-registries", [{ path: REGISTRIES, mode: 420, contents: { source: `data:,${encodeURIComponent(text)}` } }]);

  it("the merged file has the override's content and no compression", () => {
    const merged = mergeMachineConfigs([gzipBase, override(base)], "quay.io/os");
    expect(merged.files).toEqual([
      { path: REGISTRIES, mode: 420, overwrite: true, contents: { source: `data:,${encodeURIComponent(base)}` } },
    ]);
  });

  it("a later file that only sets the mode clears the compression too (Go's contents is a struct, never absent)", () => {
    const merged = mergeMachineConfigs([gzipBase, worker("99-worker-mode", [{ path: REGISTRIES, mode: 384 }])], "quay.io/os");
    expect(merged.files![0]!.contents).toEqual({ source: gz(base) });
  });

  it("a registries.conf override on a gzip base is previewed, not refused: adding a digest-only mirror reloads crio without a drain", () => {
    const mirror = `${base}\n[[registry]]\nlocation = "quay.io/x"\n\n[[registry.mirror]]\nlocation = "mirror.example.com/x"\npull-from-mirror = "digest-only"\n`;
    const before = mergeMachineConfigs([gzipBase, override(base)], "quay.io/os");
    const after = mergeMachineConfigs([gzipBase, override(mirror)], "quay.io/os");
    expect(previewDisruption(before, after, policy)).toMatchObject({ reboot: false, drain: false, actions: [{ type: "Special" }] });
  });

  it("a gzip file merged onto an uncompressed one keeps its own gzip", () => {
    const plain = worker("00-worker", [{ path: "/etc/x", contents: { source: "data:,a" } }]);
    const zipped = worker("10-worker", [{ path: "/etc/x", contents: { source: gz("b"), compression: "gzip" } }]);
    expect(mergeMachineConfigs([plain, zipped], "quay.io/os").files![0]!.contents).toEqual({ source: gz("b"), compression: "gzip" });
  });
});

describe('drain.go isSafeContainerRegistryConfChanges: registries are compared as decoded Go structs, so `prefix = ""` is no prefix', () => {
  const withRegistry = (extra: string) =>
    `unqualified-search-registries = ["registry.access.redhat.com"]\n\n[[registry]]\n${extra}location = "quay.io/openshift"\n\n[[registry.mirror]]\nlocation = "mirror.example.com/openshift"\npull-from-mirror = "digest-only"\n`;

  it.each([
    ['adding prefix = ""', withRegistry(""), withRegistry('prefix = ""\n')],
    ['removing prefix = ""', withRegistry('prefix = ""\n'), withRegistry("")],
    ["adding blocked = false and insecure = false", withRegistry(""), withRegistry("blocked = false\ninsecure = false\n")],
  ])("%s needs no drain", (_name, before, after) => {
    expect(registriesChangeUnsafeReason(before, after)).toBeNull();
    const p = previewDisruption(
      rendered({ files: { ...BASE_FILES, [REGISTRIES]: before } }),
      rendered({ files: { ...BASE_FILES, [REGISTRIES]: after } }),
      policy,
    );
    expect(p).toMatchObject({ drain: false, reboot: false });
  });

  it("a prefix that is not empty is still a change that drains", () => {
    // Same scope (the prefix equals the location), but Prefix "" != "quay.io/openshift".
    expect(registriesChangeUnsafeReason(withRegistry(""), withRegistry('prefix = "quay.io/openshift"\n'))).toBe(
      "registry quay.io/openshift: prefix changed",
    );
    expect(
      registriesChangeUnsafeReason(withRegistry('prefix = "quay.io/openshift"\n'), withRegistry('prefix = "quay.io/other"\n')),
    ).toMatch(/removed/);
    expect(registriesChangeUnsafeReason(withRegistry(""), withRegistry("blocked = true\n"))).toBe(
      "registry quay.io/openshift: blocked changed",
    );
  });
});

describe("update.go update / render_controller.go: irreconcilableValidationOverrides are read only when IrreconcilableMachineConfig is on (TechPreview-only in 4.22, default from 4.23)", () => {
  const disks = (device: string) => rendered({ files: BASE_FILES, disks: [{ device }] });
  const preview = (release: string, featureSet: string | null) =>
    previewDisruption(disks("/dev/sda"), disks("/dev/sdb"), { ...policy, storageOverrides: ["Disks"], release, featureSet });

  it("4.22 with the Default feature set: the overrides are not read, the disks change is refused", () => {
    const p = preview("4.22.3", "Default");
    expect(p.mcoRelease).toBe("4.22");
    expect(p.unreconcilable[0]).toMatch(/^storage\.disks changed/);
    expect(p.warnings[0]).toContain("irreconcilableValidationOverrides.storage [Disks] is not read");
    expect(p.warnings[0]).toContain("this cluster's feature set is Default");
  });

  it("4.22 with TechPreviewNoUpgrade: the overrides are read, the change is accepted", () => {
    expect(preview("4.22.3", "TechPreviewNoUpgrade")).toMatchObject({ mcoRelease: "4.22", unreconcilable: [] });
  });

  it.each(["4.23.1", "5.0.2"])("%s with the Default feature set: the gate is on by default, the change is accepted", (release) => {
    expect(preview(release, "Default")).toMatchObject({ mcoRelease: "4.23", unreconcilable: [] });
  });

  it("feature set not read: overrides on a live object mean the API server kept the gated field, so the gate is on", () => {
    expect(preview("4.22.3", null).unreconcilable).toEqual([]);
  });
});

describe("reconcile.go isReconcilable → ParseAndConvertConfig (Ignition's parser validates spec 3) and helpers.go ValidateIgnition: an invalid new config is refused, not applied", () => {
  const withFile = (file: Record<string, unknown>, units: unknown[] = []) => {
    const doc = machineConfigDoc({ files: BASE_FILES }, "rendered-worker-new");
    (doc.spec.config.storage.files as unknown[]).push(file);
    (doc.spec.config.systemd.units as unknown[]).push(...units);
    return readMachineConfig(doc);
  };
  const before = rendered({ files: BASE_FILES });
  const refusedWith = (after: ReturnType<typeof withFile>) => previewDisruption(before, after, policy).unreconcilable;

  it("a setuid file mode (validateIgn3FileModes)", () => {
    expect(refusedWith(withFile({ path: "/usr/local/bin/tool", mode: 0o4755, contents: { source: "data:,x" } }))).toEqual([
      'validating new Ignition config from machineconfig "rendered-worker-new" failed: invalid mode 04755 for /usr/local/bin/tool, cannot exceed 0777',
    ]);
  });

  it("Ignition's fatal report: a relative path, an unknown compression and a unit without a systemd suffix, in Ignition's order", () => {
    // A spec-3 config fails inside Ignition's parser before ValidateIgnition runs: the release-4.22
    // daemon code, run on such configs, answers "parsing new Ignition config … config is not valid".
    const after = withFile({ path: "etc/relative", mode: 420, contents: { source: "data:,x", compression: "zstd" } }, [
      { name: "backup", contents: "[Unit]\n" },
    ]);
    const index = after.files!.length - 1;
    expect(refusedWith(after)).toEqual([
      `parsing new Ignition config from machineconfig "rendered-worker-new" failed: failed to parse Ignition config: ` +
        `parsing Ignition config spec v3 failed with error: config is not valid\nReport: ` +
        `error at $.storage.files.${index}.path: path not absolute\n` +
        `error at $.storage.files.${index}.contents.compression: invalid compression method\n` +
        `error at $.systemd.units.0.name: invalid systemd unit extension`,
    ]);
  });

  it("an unknown URL scheme and an unclean path", () => {
    const reasons = refusedWith(withFile({ path: "/etc/../etc/x", mode: 420, contents: { source: "ftp://example.com/x" } }));
    expect(reasons[0]).toContain("path is not fully simplified");
    expect(reasons[0]).toContain("contents.source: invalid url scheme");
  });

  it("a valid config passes on to isConfigReconcilable", () => {
    expect(refusedWith(withFile({ path: "/etc/ok", mode: 0o644, contents: { source: "https://example.com/ok" } }))).toEqual([]);
  });
});
