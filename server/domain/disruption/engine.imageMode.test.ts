import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { canonical, diffConfigs } from "./diff";
import { previewDisruption } from "./engine";
import { decodeContents, parseManifest, readMachineConfig } from "./machineConfig";
import {
  BASE_FILES,
  editedConfig,
  machineConfigDoc,
  rendered,
  type ConfigShape,
  type MachineConfigDoc,
  defaults,
  base,
  withFiles,
  run,
  reload,
} from "./testing";

describe("unreconcilable changes (§2)", () => {
  const cases: [string, ConfigShape][] = [
    ["groups", { ...base, groups: [{ name: "admins" }] }],
    [
      "a user other than core",
      {
        ...base,
        users: [
          { name: "core", sshAuthorizedKeys: ["k"] },
          { name: "alice", sshAuthorizedKeys: ["k"] },
        ],
      },
    ],
    ["core fields other than keys and hash", { ...base, users: [{ name: "core", sshAuthorizedKeys: ["k"], shell: "/bin/zsh" }] }],
    ["storage.directories", { ...base, directories: [{ path: "/var/data" }] }],
    ["added links", { ...base, links: [{ path: "/etc/l", target: "/etc/t" }] }],
    ["disks", { ...base, disks: [{ device: "/dev/sdb" }] }],
    ["append", { files: { ...BASE_FILES, "/etc/hosts": { text: "x", append: true } } }],
    ["fips", { ...base, fips: true }],
  ];
  it.each(cases)("refuses a change to %s, with the reason and no prediction", (_what, to) => {
    const result = run(base, to);
    expect(result.unreconcilable.length).toBeGreaterThan(0);
    expect(result).toMatchObject({ actions: [], reboot: false, drain: false });
  });

  it("accepts disk changes listed in irreconcilableValidationOverrides", () => {
    expect(run(base, { ...base, disks: [{ device: "/dev/sdb" }] }, { storageOverrides: ["Disks"] }).unreconcilable).toEqual([]);
  });
});

describe("image mode (§9)", () => {
  const ocl = (image: string) => ({
    "machineconfiguration.openshift.io/ocl-osimageurl": image,
    "machineconfiguration.openshift.io/original-osimageurl": "quay.io/base@sha256:" + "0".repeat(64),
  });
  it("file changes reuse the image and follow policies; a different built image reboots; leaving image mode warns of a second reboot", () => {
    const a = { ...base, annotations: ocl("registry.example.com/os@sha256:" + "a".repeat(64)) };
    const files = withFiles({ "/etc/containers/policy.json": "x" }, { annotations: a.annotations });
    expect(run(a, files)).toMatchObject({ actions: [reload("crio.service")], imageMode: { newImageBuilt: false } });
    expect(run(a, { ...base, annotations: ocl("registry.example.com/os@sha256:" + "b".repeat(64)) }).reboot).toBe(true);
    expect(run(a, { ...base, kernelArguments: ["nosmt"], annotations: a.annotations }).imageMode?.newImageBuilt).toBe(true);
    expect(run(a, base).warnings.join(" ")).toMatch(/second reboot/);
  });

  // §9 notes are warnings, so they reach the JSON output; leaving image mode builds no image.
  const image = (digest: string) => ocl("registry.example.com/os@sha256:" + digest.repeat(64));
  const imageCases: [string, ConfigShape, ConfigShape, boolean, RegExp, RegExp | null][] = [
    [
      "§9: a file change reuses the image (layer-only)",
      { ...base, annotations: image("a") },
      withFiles({ "/etc/containers/policy.json": "x" }, { annotations: image("a") }),
      false,
      /previous OS image is reused \(layer-only/,
      null,
    ],
    [
      "§9: changed kernel arguments build a new image",
      { ...base, annotations: image("a") },
      { ...base, kernelArguments: ["nosmt"], annotations: image("b") },
      true,
      /a new OS image is built/,
      null,
    ],
    [
      "§9: leaving image mode builds nothing and costs a second reboot",
      { ...base, kernelArguments: ["nosmt"], annotations: image("a") },
      base,
      false,
      /leaving image mode.*second reboot/,
      /new OS image is built|image is reused/,
    ],
    ["§9: the first opt-in builds an image", base, { ...base, annotations: image("a") }, true, /entering image mode/, null],
  ];
  it.each(imageCases)("%s", (_rule, from, to, built, says, doesNotSay) => {
    const result = run(from, to);
    expect(result.imageMode?.newImageBuilt).toBe(built);
    expect(result.warnings).toContain(result.imageMode!.note);
    expect(result.warnings.join("\n")).toMatch(says);
    if (doesNotSay) expect(result.warnings.join("\n")).not.toMatch(doesNotSay);
  });
});

describe("image mode (§9): either annotation, and the base OS image as extractOCLImageFromMachineConfig restores it", () => {
  const OCL = "machineconfiguration.openshift.io/ocl-osimageurl";
  const ORIGINAL = "machineconfiguration.openshift.io/original-osimageurl";
  const built = (d: string) => "registry.example.com/os@sha256:" + d.repeat(64);
  const baseImage = (d: string) => "quay.io/base@sha256:" + d.repeat(64);
  // An image-mode node's config: the MCD put the built image in spec.osImageURL and the base one in
  // the original-osimageurl annotation (embedOCLImageInMachineConfig).
  const embedded = (image: string, original: string): ConfigShape => ({
    ...base,
    osImageURL: image,
    annotations: { [OCL]: image, [ORIGINAL]: original },
  });
  // [rule, from, to, image-mode note or null, newImageBuilt]
  const cases: [string, ConfigShape, ConfigShape, RegExp | null, boolean | null][] = [
    [
      "§9: the original-osimageurl annotation alone marks an image-mode config (leaving image mode)",
      { ...base, annotations: { [ORIGINAL]: baseImage("0") } },
      base,
      /leaving image mode/,
      false,
    ],
    [
      "§9: the ocl-osimageurl annotation alone marks an image-mode config (entering image mode)",
      base,
      { ...base, annotations: { [OCL]: built("a") } },
      /entering image mode/,
      true,
    ],
    [
      "§9: a new base OS image under the same built image is a rebuild (the base is compared, not spec.osImageURL)",
      embedded(built("a"), baseImage("0")),
      embedded(built("a"), baseImage("1")),
      /a new OS image is built/,
      true,
    ],
    [
      "§9: a different built image over the same base is no rebuild: the build compares the base image; the node still reboots for the new image",
      embedded(built("a"), baseImage("0")),
      embedded(built("b"), baseImage("0")),
      /previous OS image is reused/,
      false,
    ],
    ["§9: no annotation on either side is not image mode", base, { ...base, osImageURL: baseImage("1") }, null, null],
  ];
  it.each(cases)("%s", (_rule, from, to, note, newImageBuilt) => {
    const result = run(from, to);
    if (note === null) expect(result.imageMode).toBeNull();
    else {
      expect(result.imageMode?.note).toMatch(note);
      expect(result.imageMode?.newImageBuilt).toBe(newImageBuilt);
    }
  });

  it('§9: the reader restores the base image from original-osimageurl, and "" when only ocl-osimageurl is there', () => {
    expect(rendered(embedded(built("a"), baseImage("0")))).toMatchObject({
      osImageURL: built("a"),
      baseOsImageURL: baseImage("0"),
      oclImage: built("a"),
      imageMode: true,
    });
    expect(rendered({ ...base, annotations: { [OCL]: built("a") } })).toMatchObject({ baseOsImageURL: "", imageMode: true });
    expect(rendered(base)).toMatchObject({ baseOsImageURL: rendered(base).osImageURL, oclImage: null, imageMode: false });
  });
});

describe("empty Ignition objects (§3): {} decodes like an absent field", () => {
  type Doc = MachineConfigDoc;
  const edit = (change: (doc: Doc) => void) => editedConfig(base, change);
  const chrony = (doc: Doc) => doc.spec.config.storage.files.find((f) => f.path === "/etc/chrony.conf")! as Record<string, unknown>;
  const sameCases: [string, (doc: Doc) => void][] = [
    ["§3: contents.verification {}", (doc) => ((chrony(doc).contents as Record<string, unknown>).verification = {})],
    ["§3: user {} and group {}", (doc) => Object.assign(chrony(doc), { user: {}, group: {} })],
    ["§3: user { name: null } (empty once nil is dropped)", (doc) => Object.assign(chrony(doc), { user: { name: null } })],
    [
      "§3: contents {} on a file that has none",
      (doc) => doc.spec.config.storage.files.push({ path: "/etc/empty", mode: 420, contents: {} } as never),
    ],
    [
      "§2: a link with user {} is the same link, not an added one",
      (doc) => ((doc.spec.config.storage as Record<string, unknown>).links = [{ path: "/etc/l", target: "/t", user: {} }]),
    ],
  ];
  it.each(sameCases)("%s is not a change", (rule, change) => {
    const from = rule.includes("contents {}")
      ? edit((doc) => doc.spec.config.storage.files.push({ path: "/etc/empty", mode: 420 } as never))
      : rule.includes("link")
        ? edit((doc) => ((doc.spec.config.storage as Record<string, unknown>).links = [{ target: "/t", path: "/etc/l" }]))
        : readMachineConfig(machineConfigDoc(base));
    const result = previewDisruption(from, edit(change), defaults);
    expect(result).toMatchObject({ actions: [{ type: "None" }], changes: [], unreconcilable: [] });
  });

  it("§3: only empty objects are dropped — arrays and scalars are kept", () => {
    expect(canonical({ a: {}, b: { c: {} }, d: [], e: [{}], f: 0, g: "", h: false, i: null })).toEqual({
      d: [],
      e: [{}],
      f: 0,
      g: "",
      h: false,
    });
    const headers = edit((doc) => ((chrony(doc).contents as Record<string, unknown>).httpHeaders = []));
    expect(diffConfigs(readMachineConfig(machineConfigDoc(base)), headers).fileChanges).toEqual([
      { path: "/etc/chrony.conf", change: "changed" },
    ]);
  });
});

describe("reading manifests as Kubernetes does (YAML 1.1)", () => {
  const spec = (text: string) => {
    const parsed = parseManifest(text);
    if (!parsed.ok) throw new Error(parsed.error);
    return parsed.value as Record<string, unknown>;
  };
  const yamlCases: [string, string, Record<string, unknown>][] = [
    ["YAML 1.1: mode: 0644 is octal 420", "mode: 0644\n", { mode: 420 }],
    ["YAML 1.1: yes and off are booleans", "a: yes\nb: off\n", { a: true, b: false }],
    ["go-yaml v2: timestamps and sexagesimals stay strings", "t: 2024-01-01\nx: 1:20\n", { t: "2024-01-01", x: "1:20" }],
    [
      "JSON input is unaffected",
      '{"mode": 420, "a": "0644", "b": "yes", "c": 1e3, "d": [1.5, -0, "1:20"], "e": null}',
      { mode: 420, a: "0644", b: "yes", c: 1000, d: [1.5, -0, "1:20"], e: null },
    ],
  ];
  it.each(yamlCases)("%s", (_rule, text, value) => {
    expect(spec(text)).toEqual(value);
  });

  it("JSON reads the same under YAML 1.1 as under YAML 1.2", () => {
    const json = JSON.stringify(machineConfigDoc({ files: BASE_FILES, kernelArguments: ["y", "on", "0644", "1:20"] }));
    const yaml12 = (parseAllDocuments(json) as ReturnType<typeof parseAllDocuments> & unknown[])[0]!.toJS();
    expect(spec(json)).toEqual(yaml12);
    expect(spec(json)).toEqual(JSON.parse(json));
  });

  it("every failure to read comes back as an error value, never thrown", () => {
    const bomb = [
      "a: &a [x, x, x, x, x, x, x, x, x, x]",
      "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]",
      "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]",
      "d: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]",
    ].join("\n");
    expect(parseManifest(bomb)).toEqual({ ok: false, error: expect.stringMatching(/Excessive alias count/) });
    expect(parseManifest("a: [unclosed")).toMatchObject({ ok: false, error: expect.stringMatching(/not valid YAML or JSON/) });
    expect(parseManifest("a: 1\n---\nb: 2\n")).toMatchObject({ ok: false, error: expect.stringMatching(/exactly one object/) });
  });
});

describe("file contents", () => {
  it("decodes percent-encoded, base64 and gzip data URLs, and admits what it cannot read", () => {
    expect(decodeContents({ path: "/a", contents: { source: "data:,hello%20world" } }).text).toBe("hello world");
    expect(
      decodeContents({ path: "/a", contents: { source: `data:text/plain;charset=utf-8;base64,${Buffer.from("hi").toString("base64")}` } })
        .text,
    ).toBe("hi");
    const gz = rendered({ files: { "/etc/x": { gzip: "compressed text" } } }).files![0];
    expect(decodeContents(gz).text).toBe("compressed text");
    expect(decodeContents({ path: "/a", contents: { source: "https://example.com/x" } })).toMatchObject({
      text: null,
      note: expect.stringMatching(/remote source/),
    });
  });
});
