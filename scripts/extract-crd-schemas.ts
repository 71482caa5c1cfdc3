/**
 * Writes the OpenAPI schemas the simulated API servers validate writes against (data/openapi/*.json,
 * read by server/simulator/openapi) from the CRD manifests in a git directory: for each kind, the
 * served version's `openAPIV3Schema` with what validation reads (types, required, enums, lengths,
 * item counts, patterns, list types, `x-kubernetes-validations`) and without descriptions, plus the
 * repository, ref, commit and path it was read from. A rule the simulator's CEL cannot evaluate is
 * kept, marked `unsupported` with the reason, and the script says so.
 *
 * Usage (one invocation per repository; `fetch` or clone it first):
 *   npx tsx scripts/extract-crd-schemas.ts --git-dir <dir> --repository openshift/api --ref release-4.22 \
 *     --crd <path>=<output name> [--crd …]
 * e.g. --crd machineconfiguration/v1/zz_generated.crd-manifests/0000_80_machine-config_01_pinnedimagesets.crd.yaml=pinnedimagesets
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { unsupportedReason } from "../server/simulator/openapi/cel";

const KEPT = new Set([
  "type",
  "properties",
  "items",
  "additionalProperties",
  "required",
  "enum",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "minProperties",
  "maxProperties",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "pattern",
  "format",
  "nullable",
  "default",
  "x-kubernetes-validations",
  "x-kubernetes-list-type",
  "x-kubernetes-list-map-keys",
  "x-kubernetes-map-type",
  "x-kubernetes-int-or-string",
  "x-kubernetes-preserve-unknown-fields",
  "x-kubernetes-embedded-resource",
]);

type Node = Record<string, unknown>;
const unsupported: string[] = [];

function strip(node: Node, at: string): Node {
  const out: Node = {};
  for (const [key, value] of Object.entries(node)) {
    if (!KEPT.has(key)) {
      if (["description", "example", "title"].includes(key)) continue;
      throw new Error(`${at}: schema keyword "${key}" is not handled by server/simulator/openapi`);
    }
    if (key === "properties") {
      out.properties = Object.fromEntries(Object.entries(value as Record<string, Node>).map(([k, v]) => [k, strip(v, `${at}.${k}`)]));
    } else if (key === "items" || (key === "additionalProperties" && typeof value === "object")) {
      out[key] = strip(value as Node, `${at}${key === "items" ? "[*]" : "[*key]"}`);
    } else if (key === "x-kubernetes-validations") {
      out[key] = (value as Node[]).map((rule) => {
        const reason = unsupportedReason(String(rule.rule));
        if (reason) unsupported.push(`${at}: ${String(rule.rule)} (${reason})`);
        return reason ? { ...rule, unsupported: reason } : rule;
      });
    } else out[key] = value;
  }
  return out;
}

const args = process.argv.slice(2);
const option = (name: string) => {
  const i = args.indexOf(`--${name}`);
  if (i < 0 || !args[i + 1]) throw new Error(`--${name} is required`);
  return args[i + 1]!;
};
const gitDir = option("git-dir");
const repository = option("repository");
const ref = option("ref");
const commit = execFileSync("git", ["--git-dir", gitDir, "rev-parse", ref], { encoding: "utf8" }).trim();
const crds = args.flatMap((a, i) => (args[i - 1] === "--crd" ? [a] : []));
if (crds.length === 0) throw new Error("at least one --crd <path>=<name> is required");

const outDir = path.resolve(__dirname, "../data/openapi");
mkdirSync(outDir, { recursive: true });
for (const spec of crds) {
  const [file, name] = spec.split("=");
  if (!file || !name) throw new Error(`--crd ${spec}: expected <path>=<name>`);
  const crd = parse(execFileSync("git", ["--git-dir", gitDir, "show", `${commit}:${file}`], { encoding: "utf8", maxBuffer: 64 << 20 }));
  const fileCommit = execFileSync("git", ["--git-dir", gitDir, "log", "-1", "--format=%H", commit, "--", file], {
    encoding: "utf8",
  }).trim();
  const version = (crd.spec.versions as Node[]).find((v) => v.storage) as { name: string; schema: { openAPIV3Schema: Node } };
  const data = {
    source: { repository, ref, commit, path: file, fileCommit, featureSet: crd.metadata.annotations?.["release.openshift.io/feature-set"] },
    group: crd.spec.group,
    version: version.name,
    kind: crd.spec.names.kind,
    schema: strip(version.schema.openAPIV3Schema, crd.spec.names.kind),
  };
  writeFileSync(path.join(outDir, `${name}.json`), `${JSON.stringify(data, null, 1)}\n`);
  console.log(`data/openapi/${name}.json: ${data.kind}.${data.group}/${data.version} from ${repository}@${commit.slice(0, 12)}:${file}`);
}
for (const line of unsupported) console.log(`unsupported rule, skipped by the simulator: ${line}`);
