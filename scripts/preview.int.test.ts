import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { BASE_FILES, machineConfigDoc, type ConfigShape } from "../server/domain/disruption/testing";

const root = path.resolve(__dirname, "..");
const dir = mkdtempSync(path.join(os.tmpdir(), "fleetskew-preview-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const policy = path.join(root, "server/simulator/fixtures/prod-east/machineconfiguration.json");

let n = 0;
function file(content: string): string {
  const p = path.join(dir, `f${n++}.yaml`);
  writeFileSync(p, content);
  return p;
}
const mc = (shape: ConfigShape, format: "yaml" | "json" = "yaml") =>
  file(format === "yaml" ? stringify(machineConfigDoc(shape)) : JSON.stringify(machineConfigDoc(shape)));

function preview(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const result = spawnSync(
    process.execPath,
    [path.join(root, "node_modules/tsx/dist/cli.mjs"), path.join(root, "scripts/preview.ts"), ...args],
    { encoding: "utf8", cwd: options.cwd, env: options.env ?? process.env },
  );
  return { code: result.status, out: result.stdout.trim(), err: result.stderr, json: () => JSON.parse(result.stdout) };
}

const base = mc({ files: BASE_FILES });

describe("npm run preview", () => {
  it("applies the cluster's own policy entry: chrony.conf → Restart chronyd.service, no drain", () => {
    const r = preview([
      "--from",
      base,
      "--to",
      mc({ files: { ...BASE_FILES, "/etc/chrony.conf": "server ntp.example.com iburst\n" } }, "json"),
      "--policy",
      policy,
      "--format",
      "json",
    ]);
    expect(r.code).toBe(0);
    const body = r.json();
    expect(Object.keys(body)).toEqual(["actions", "reboot", "drain", "unreconcilable", "changes", "warnings"]);
    expect(body).toMatchObject({
      actions: [{ type: "Restart", restart: { serviceName: "chronyd.service" } }],
      reboot: false,
      drain: false,
      unreconcilable: [],
    });
    expect(body.changes[0]).toMatchObject({ kind: "file", name: "/etc/chrony.conf", change: "changed" });
    expect(body.changes[0].decidedBy).toContain("cluster policy for /etc/chrony.conf");
  });

  it("reboots for a new file under /etc/sysctl.d, and reloads crio for policy.json", () => {
    expect(
      preview([
        "--from",
        base,
        "--to",
        mc({ files: { ...BASE_FILES, "/etc/sysctl.d/99-net.conf": "net.core.somaxconn=1024\n" } }),
        "--policy",
        policy,
      ]).json(),
    ).toMatchObject({ actions: [{ type: "Reboot" }], reboot: true, drain: true });
    expect(
      preview(["--from", base, "--to", mc({ files: { ...BASE_FILES, "/etc/containers/policy.json": "{}\n" } }), "--policy", policy]).json(),
    ).toMatchObject({ actions: [{ type: "Reload", reload: { serviceName: "crio.service" } }], drain: false });
  });

  it("uses the defaults without --policy, and the legacy rules with --first-boot", () => {
    const chrony = mc({ files: { ...BASE_FILES, "/etc/chrony.conf": "x\n" } });
    expect(preview(["--from", base, "--to", chrony]).json().actions).toEqual([{ type: "Reboot" }]);
    const units = mc({ files: BASE_FILES, units: [{ name: "iri-registry.service", contents: "[Unit]\n" }] });
    expect(preview(["--from", base, "--to", units, "--first-boot"]).json().actions).toEqual([{ type: "Reboot" }]);
    expect(
      preview(["--from", base, "--to", mc({ files: { ...BASE_FILES, "/etc/containers/policy.json": "{}\n" } }), "--first-boot"]).json()
        .actions,
    ).toEqual([{ type: "Reload", reload: { serviceName: "crio.service" } }]);
  });

  it("reports refused changes as unreconcilable", () => {
    const body = preview(["--from", base, "--to", mc({ files: BASE_FILES, fips: true })]).json();
    expect(body).toMatchObject({ actions: [], reboot: false, drain: false });
    expect(body.unreconcilable[0]).toMatch(/fips/);
  });

  it("prints a readable text form", () => {
    const r = preview([
      "--from",
      base,
      "--to",
      mc({ files: { ...BASE_FILES, "/etc/chrony.conf": "x\n" } }),
      "--policy",
      policy,
      "--format",
      "text",
    ]);
    expect(r.out).toContain("Actions: Restart chronyd.service");
    expect(r.out).toContain("Drain: no");
  });

  it("exits 1 with {error} for input it cannot read, guessing nothing", () => {
    const cases: [string[], RegExp][] = [
      [["--from", file("a: [unclosed"), "--to", base], /not valid YAML or JSON/],
      [["--from", file("kind: ConfigMap\napiVersion: v1\n"), "--to", base], /is not a MachineConfig/],
      [["--from", base, "--to", "/nonexistent.yaml"], /no such file/],
      [
        ["--from", base, "--to", mc({ files: { ...BASE_FILES, "/etc/containers/registries.conf": "[[registry]\nbroken" } })],
        /registries.conf is not valid TOML/,
      ],
      [["--from", base], /usage/],
      [["--from", base, "--to", base, "--policy", base], /is not a MachineConfiguration/],
    ];
    for (const [args, message] of cases) {
      const r = preview(args);
      expect(r.code).toBe(1);
      expect(r.json()).toEqual({ error: expect.stringMatching(message) });
    }
  });

  const registries = (body: string) => mc({ files: { ...BASE_FILES, "/etc/containers/registries.conf": body } }, "json");
  const bomb = [
    "apiVersion: machineconfiguration.openshift.io/v1",
    "kind: MachineConfig",
    "a: &a [x, x, x, x, x, x, x, x, x, x]",
    "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]",
    "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]",
    "d: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]",
    "spec: {}",
  ].join("\n");
  const badPolicy = (actions: unknown[]) =>
    file(
      JSON.stringify({
        apiVersion: "operator.openshift.io/v1",
        kind: "MachineConfiguration",
        metadata: { name: "cluster" },
        status: {
          nodeDisruptionPolicyStatus: {
            clusterPolicies: { files: [{ path: "/etc/chrony.conf", actions }], sshkey: { actions: [{ type: "None" }] } },
          },
        },
      }),
    );
  const chronyChanged = mc({ files: { ...BASE_FILES, "/etc/chrony.conf": "x\n" } });
  const fixturePolicy = JSON.parse(readFileSync(policy, "utf8")) as { metadata: Record<string, unknown>; status: Record<string, unknown> };
  const policyVariant = (change: (doc: typeof fixturePolicy) => void) => {
    const doc = structuredClone(fixturePolicy);
    change(doc);
    return file(JSON.stringify(doc));
  };
  const errorCases: [string, string[], RegExp][] = [
    [
      "YAML: an alias bomb is unreadable input, not a crash",
      ["--from", file(bomb), "--to", base],
      /--from .* is not valid YAML or JSON: Excessive alias count/,
    ],
    [
      "§6: registries.conf with unqualified-search-registries as a string cannot be judged",
      ["--from", base, "--to", registries('unqualified-search-registries = "docker.io"\n')],
      /new \/etc\/containers\/registries\.conf .*unqualified-search-registries must be an array of strings/,
    ],
    [
      "§6: registries.conf with registry as a string cannot be judged",
      ["--from", registries('registry = "docker.io"\n'), "--to", base],
      /old \/etc\/containers\/registries\.conf .*registry must be an array of tables/,
    ],
    [
      "§6: registries.conf with a mirror as a string cannot be judged",
      ["--from", base, "--to", registries('[[registry]]\nlocation = "a"\nmirror = "m"\n')],
      /registry\[0\]\.mirror must be an array of tables/,
    ],
    [
      "§6: registries.conf with a numeric location cannot be judged",
      ["--from", base, "--to", registries("[[registry]]\nlocation = 5\nmirror-by-digest-only = true\n")],
      /registry\[0\]\.location must be a string/,
    ],
    [
      "§8: a Reload without reload in the policy is refused, naming the entry",
      ["--from", base, "--to", chronyChanged, "--policy", badPolicy([{ type: "Reload" }])],
      /files\[0\]\.actions\[0\] \(path \/etc\/chrony\.conf\): type Reload requires reload\.serviceName/,
    ],
    [
      "§8: an unknown action type in the policy is refused, naming the entry",
      [
        "--from",
        base,
        "--to",
        chronyChanged,
        "--policy",
        badPolicy([{ type: "Restart", restart: { serviceName: "chronyd.service" } }, { type: "Bogus" }]),
      ],
      /files\[0\]\.actions\[1\] \(path \/etc\/chrony\.conf\): type "Bogus"/,
    ],
    [
      "§7: a MachineConfiguration not named cluster is not the one the MCO reads, so it is refused",
      ["--from", base, "--to", chronyChanged, "--policy", policyVariant((doc) => (doc.metadata.name = "other"))],
      /is the MachineConfiguration "other"; only the one named "cluster" is used by the MCO \(§7\)/,
    ],
    [
      "§7: a MachineConfiguration without a name is refused too",
      ["--from", base, "--to", chronyChanged, "--policy", policyVariant((doc) => delete doc.metadata.name)],
      /is the MachineConfiguration without a name; only the one named "cluster"/,
    ],
    [
      "§8: a Restart without restart in the policy is refused, naming the entry",
      ["--from", base, "--to", chronyChanged, "--policy", badPolicy([{ type: "Restart" }])],
      /files\[0\]\.actions\[0\] \(path \/etc\/chrony\.conf\): type Restart requires restart\.serviceName/,
    ],
  ];
  it.each(errorCases)("%s", (_rule, args, message) => {
    const r = preview(args);
    expect(r.err).not.toMatch(/at .*\.ts:\d+/);
    expect(r.code).toBe(1);
    expect(r.json()).toEqual({ error: expect.stringMatching(message) });
  });

  const ocl = (digest: string) => ({
    "machineconfiguration.openshift.io/ocl-osimageurl": "registry.example.com/os@sha256:" + digest.repeat(64),
    "machineconfiguration.openshift.io/original-osimageurl": "quay.io/base@sha256:" + "0".repeat(64),
  });
  const unitsIn = (...names: string[]) => ({ files: BASE_FILES, units: names.map((name) => ({ name, contents: "[Unit]\n" })) });
  const jsonMode = file(JSON.stringify(machineConfigDoc({ files: BASE_FILES })));
  const yamlOctal = file(stringify(machineConfigDoc({ files: BASE_FILES })).replaceAll("mode: 420", "mode: 0644"));
  const answerCases: [string, string[], Record<string, unknown>, RegExp | null][] = [
    [
      "YAML 1.1: mode: 0644 in YAML is the 420 of the JSON form, so nothing changed",
      ["--from", jsonMode, "--to", yamlOctal],
      { actions: [{ type: "None" }], changes: [] },
      null,
    ],
    [
      "§10 step 2 / §3: with --first-boot, reordering units alone reboots",
      ["--from", mc(unitsIn("a.service", "b.service")), "--to", mc(unitsIn("b.service", "a.service")), "--first-boot"],
      { actions: [{ type: "Reboot" }], reboot: true, drain: true },
      null,
    ],
    [
      "§9: the image-mode note is in the JSON warnings (layer-only reuse)",
      [
        "--from",
        mc({ files: BASE_FILES, annotations: ocl("a") }),
        "--to",
        mc({ files: { ...BASE_FILES, "/etc/containers/policy.json": "{}\n" }, annotations: ocl("a") }),
      ],
      { actions: [{ type: "Reload", reload: { serviceName: "crio.service" } }] },
      /previous OS image is reused \(layer-only/,
    ],
    [
      "§4 step 1, §12.5: a stale policy status is used as it is, with a warning on what the MCD does",
      ["--from", base, "--to", chronyChanged, "--policy", policyVariant((doc) => (doc.status.observedGeneration = 2))],
      { actions: [{ type: "Restart", restart: { serviceName: "chronyd.service" } }] },
      /status is stale \(status\.observedGeneration 2 < metadata\.generation 3\)/,
    ],
    [
      "§9: leaving image mode says no image is built",
      ["--from", mc({ files: BASE_FILES, annotations: ocl("a") }), "--to", base],
      { reboot: true },
      /leaving image mode: no OS image is built/,
    ],
  ];
  it.each(answerCases)("%s", (_rule, args, expected, warning) => {
    const body = preview(["--format", "json", ...args]).json();
    expect(body).toMatchObject(expected);
    if (warning) expect(body.warnings.join("\n")).toMatch(warning);
    expect(body.warnings.join("\n")).not.toMatch(/new OS image is built/);
  });

  it("resolves relative --from/--to/--policy against INIT_CWD (where npm was run), else the working directory", () => {
    const sub = path.join(dir, "from-here");
    mkdirSync(sub, { recursive: true });
    writeFileSync(path.join(sub, "old.yaml"), stringify(machineConfigDoc({ files: BASE_FILES })));
    writeFileSync(path.join(sub, "new.yaml"), stringify(machineConfigDoc({ files: { ...BASE_FILES, "/etc/chrony.conf": "x\n" } })));
    copyFileSync(policy, path.join(sub, "mc.json"));
    const args = ["--from", "old.yaml", "--to", "new.yaml", "--policy", "mc.json"];
    const expected = { actions: [{ type: "Restart", restart: { serviceName: "chronyd.service" } }] };
    expect(preview(args, { cwd: root, env: { ...process.env, INIT_CWD: sub } }).json()).toMatchObject(expected);
    const { INIT_CWD: _ignored, ...withoutInitCwd } = process.env;
    expect(preview(args, { cwd: sub, env: withoutInitCwd }).json()).toMatchObject(expected);
  });
});
