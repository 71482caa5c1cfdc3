import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { parseAllDocuments } from "yaml";
import type { KubeObject } from "./store";

export type ImportResult = { objects: KubeObject[]; warnings: string[] };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Objects from one parsed document: a single object, or the items of a `*List`. */
function objectsOf(doc: unknown, where: string, warnings: string[]): KubeObject[] {
  if (!isObject(doc)) {
    if (doc !== null && doc !== undefined) warnings.push(`${where}: not a Kubernetes object, skipped`);
    return [];
  }
  if (Array.isArray(doc.items) && (typeof doc.kind !== "string" || doc.kind.endsWith("List"))) {
    return doc.items.flatMap((item, i) => objectsOf(item, `${where} item ${i}`, warnings));
  }
  const metadata = doc.metadata;
  if (typeof doc.apiVersion !== "string" || typeof doc.kind !== "string" || !isObject(metadata) || typeof metadata.name !== "string") {
    warnings.push(`${where}: has no apiVersion, kind and metadata.name, skipped`);
    return [];
  }
  return [doc as KubeObject];
}

/**
 * Reads object dumps (`oc get -o json|yaml` output, must-gather files) from a directory: every
 * *.json, *.yaml and *.yml file directly in it, each a single object, a List, or multi-document
 * YAML. A file that cannot be parsed is an error naming it; non-objects are skipped with a warning.
 */
export async function importDumps(dir: string): Promise<ImportResult> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    throw new Error(`cannot read ${dir}: ${error.code === "ENOENT" ? "no such directory" : error.message}`);
  });
  const files = entries
    .filter((e) => e.isFile() && /\.(json|ya?ml)$/i.test(e.name))
    .map((e) => e.name)
    .sort();
  const warnings: string[] = [];
  const objects: KubeObject[] = [];
  for (const file of files) {
    const text = await readFile(path.join(dir, file), "utf8");
    let docs: unknown[];
    if (/\.json$/i.test(file)) {
      try {
        docs = [JSON.parse(text)];
      } catch (error) {
        throw new Error(`${file} is not valid JSON: ${(error as Error).message}`);
      }
    } else {
      const parsed = parseAllDocuments(text);
      const list = Array.isArray(parsed) ? parsed : [parsed];
      const bad = list.find((d) => d.errors.length > 0);
      if (bad) throw new Error(`${file} is not valid YAML: ${bad.errors[0]!.message.split("\n")[0]}`);
      docs = list.map((d) => d.toJS());
    }
    docs.forEach((doc, i) => objects.push(...objectsOf(doc, docs.length > 1 ? `${file} document ${i + 1}` : file, warnings)));
  }
  if (objects.length === 0) warnings.push(`${dir}: no Kubernetes objects found`);
  return { objects, warnings };
}
