import { parseAllDocuments } from "yaml";

/**
 * Object dumps: what `oc get -o json|yaml` and must-gather write. One file holds a single object,
 * a `*List`, or (YAML) several documents. This is the one parser for every way dumps arrive: the
 * simulator's `--import DIR` and an admin's offline import.
 */
export type DumpObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; [key: string]: unknown };
  [key: string]: unknown;
};

export type ParsedDump = { objects: DumpObject[]; warnings: string[] };

/** A file that is not valid JSON or YAML; the message names the file. */
export class DumpParseError extends Error {
  override name = "DumpParseError";
}

/** The file names dumps come in; anything else in a directory or archive is not a dump. */
export const isDumpFileName = (name: string) => /\.(json|ya?ml)$/i.test(name);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Objects from one parsed document: a single object, or the items of a `*List`. */
function objectsOf(doc: unknown, where: string, warnings: string[]): DumpObject[] {
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
  return [doc as DumpObject];
}

/**
 * The objects in one dump file's text. `file` names it in messages and decides the format (*.json
 * is JSON, anything else YAML). Text that cannot be parsed throws DumpParseError; documents that
 * are not objects are skipped with a warning.
 */
export function parseDumpFile(file: string, text: string): ParsedDump {
  // Editors on Windows save a byte-order mark; neither parser wants it.
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  let docs: unknown[];
  if (/\.json$/i.test(file)) {
    try {
      docs = [JSON.parse(body)];
    } catch (error) {
      throw new DumpParseError(`${file} is not valid JSON: ${(error as Error).message}`);
    }
  } else {
    const parsed = parseAllDocuments(body);
    const list = Array.isArray(parsed) ? parsed : [parsed];
    const bad = list.find((d) => d.errors.length > 0);
    if (bad) throw new DumpParseError(`${file} is not valid YAML: ${bad.errors[0]!.message.split("\n")[0]}`);
    try {
      docs = list.map((d) => d.toJS());
    } catch (error) {
      // toJS refuses documents that expand too far (alias bombs).
      throw new DumpParseError(`${file} cannot be read as YAML: ${(error as Error).message}`);
    }
  }
  const warnings: string[] = [];
  const objects = docs.flatMap((doc, i) => objectsOf(doc, docs.length > 1 ? `${file} document ${i + 1}` : file, warnings));
  return { objects, warnings };
}
