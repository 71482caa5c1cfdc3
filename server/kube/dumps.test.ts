import { describe, expect, it } from "vitest";
import { DumpParseError, parseDumpFile } from "./dumps";

const cm = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "x" } });

describe("parseDumpFile", () => {
  it("reads a single object, a List and multi-document YAML", () => {
    expect(parseDumpFile("a.json", JSON.stringify(cm("a"))).objects.map((o) => o.metadata.name)).toEqual(["a"]);
    const list = { apiVersion: "v1", kind: "ConfigMapList", items: [cm("a"), cm("b")] };
    expect(parseDumpFile("list.json", JSON.stringify(list)).objects.map((o) => o.metadata.name)).toEqual(["a", "b"]);
    const yaml = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n";
    expect(parseDumpFile("two.yaml", yaml).objects.map((o) => o.metadata.name)).toEqual(["a", "b"]);
  });

  it("tolerates a byte-order mark, and skips what is not an object with a warning naming where it was", () => {
    expect(parseDumpFile("bom.json", `\uFEFF${JSON.stringify(cm("a"))}`).objects).toHaveLength(1);
    const list = { kind: "List", items: [cm("a"), "text", { kind: "ConfigMap" }] };
    expect(parseDumpFile("mixed.json", JSON.stringify(list))).toEqual({
      objects: [cm("a")],
      warnings: [
        "mixed.json item 1: not a Kubernetes object, skipped",
        "mixed.json item 2: has no apiVersion, kind and metadata.name, skipped",
      ],
    });
  });

  it("refuses text that is not JSON or YAML, naming the file", () => {
    expect(() => parseDumpFile("broken.json", "{ not json")).toThrow(DumpParseError);
    expect(() => parseDumpFile("broken.json", "{ not json")).toThrow(/^broken\.json is not valid JSON/);
    expect(() => parseDumpFile("broken.yml", "a: [1, 2\n")).toThrow(/^broken\.yml is not valid YAML/);
  });
});
