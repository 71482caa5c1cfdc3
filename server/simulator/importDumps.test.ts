import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { clusterFromDumps } from "./importCluster";
import { importDumps } from "./importDumps";

const fixtures = path.join(__dirname, "fixtures/prod-east");
const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));
async function dirWith(files: Record<string, string>) {
  const dir = await mkdtemp(path.join(os.tmpdir(), "fleetskew-import-"));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
  return dir;
}

describe("importDumps", () => {
  it("reads the reference cluster's files, Lists included, and takes its version from ClusterVersion", async () => {
    const { spec, warnings } = await clusterFromDumps(fixtures, "prod-east", 1);
    expect(warnings).toEqual([]);
    expect(spec.ocpVersion).toBe("4.19.10");
    const kinds = spec.objects().map((o) => o.kind);
    expect(kinds.filter((k) => k === "MachineSet")).toHaveLength(4);
    expect(kinds.filter((k) => k === "MachineConfigNode")).toHaveLength(3);
  });

  it("reads multi-document YAML and skips what is not an object, saying so", async () => {
    const dir = await dirWith({
      "site.yaml":
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: x\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: x\n---\n",
      "notes.yml": "just: some\nnotes: here\n",
      "README.md": "ignored",
    });
    const { objects, warnings } = await importDumps(dir);
    expect(objects.map((o) => o.metadata.name)).toEqual(["a", "b"]);
    expect(warnings).toEqual(["notes.yml: has no apiVersion, kind and metadata.name, skipped"]);
  });

  it("names the file that cannot be parsed", async () => {
    await expect(importDumps(await dirWith({ "broken.json": "{ not json" }))).rejects.toThrow(/^broken\.json is not valid JSON/);
    await expect(importDumps(await dirWith({ "broken.yaml": "a: [1, 2\n" }))).rejects.toThrow(/^broken\.yaml is not valid YAML/);
    await expect(importDumps("/nonexistent/dir")).rejects.toThrow("cannot read /nonexistent/dir: no such directory");
  });
});
