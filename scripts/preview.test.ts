import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
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

function preview(args: string[]) {
  const result = spawnSync(
    process.execPath,
    [path.join(root, "node_modules/tsx/dist/cli.mjs"), path.join(root, "scripts/preview.ts"), ...args],
    { encoding: "utf8" },
  );
  return { code: result.status, out: result.stdout.trim(), json: () => JSON.parse(result.stdout) };
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
});
