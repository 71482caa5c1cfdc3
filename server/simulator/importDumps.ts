import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { isDumpFileName, parseDumpFile } from "../kube/dumps";
import type { KubeObject } from "./objectStore";

export type ImportResult = { objects: KubeObject[]; warnings: string[] };

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
    .filter((e) => e.isFile() && isDumpFileName(e.name))
    .map((e) => e.name)
    .sort();
  const warnings: string[] = [];
  const objects: KubeObject[] = [];
  for (const file of files) {
    const parsed = parseDumpFile(file, await readFile(path.join(dir, file), "utf8"));
    objects.push(...parsed.objects);
    warnings.push(...parsed.warnings);
  }
  if (objects.length === 0) warnings.push(`${dir}: no Kubernetes objects found`);
  return { objects, warnings };
}
