/**
 * Writes the OpenAPI schemas the simulated API servers hold writes to (data/openapi/*.json, read by
 * server/simulator/openapi) from the CRD manifests in a git directory: for each kind, the served
 * version's `openAPIV3Schema` with what pruning, defaulting and validation read (types, required,
 * enums, lengths, item counts, patterns, formats, defaults, list types, `x-kubernetes-*`,
 * `x-kubernetes-validations`) and without descriptions, plus the repository, ref, commit and path it
 * was read from. A rule the simulator's CEL cannot evaluate is kept, marked `unsupported` with the
 * reason, and the script says so.
 *
 * One ref (the hub's CRDs, whatever the cluster's version):
 *   npx tsx scripts/extract-crd-schemas.ts --git-dir <dir> --repository stolostron/cluster-permission --ref HEAD \
 *     --crd <path>=<output name> [--crd …]
 * Per OpenShift release line (`--refs`, each `release-4.N`): the file holds every line's source and
 * its schema, identical schemas stored once. Where a line ships a `-Default` manifest (feature sets
 * differ) that one is read, else the single manifest (`<path>` given without `-Default`):
 *   npx tsx scripts/extract-crd-schemas.ts --git-dir <openshift/api> --repository openshift/api \
 *     --refs release-4.16,release-4.17,…,release-4.23 \
 *     --crd operator/v1/zz_generated.crd-manifests/0000_80_machine-config_01_machineconfigurations.crd.yaml=machineconfigurations
 * A line without the manifest is left out (the kind is not served there, or not as this version).
 * `--feature-sets TechPreviewNoUpgrade,DevPreviewNoUpgrade` also keeps those feature sets' own
 * manifests, under "<line>/<feature set>", where a line has them.
 */
import { execFileSync } from "node:child_process";
import { isDeepStrictEqual } from "node:util";
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
  return i >= 0 && args[i + 1] ? args[i + 1]! : undefined;
};
const required = (name: string) => option(name) ?? fail(`--${name} is required`);
function fail(message: string): never {
  throw new Error(message);
}
const gitDir = required("git-dir");
const repository = required("repository");
const git = (...rest: string[]) => execFileSync("git", ["--git-dir", gitDir, ...rest], { encoding: "utf8", maxBuffer: 64 << 20 });
const crds = args.flatMap((a, i) => (args[i - 1] === "--crd" ? [a] : []));
if (crds.length === 0) fail("at least one --crd <path>=<name> is required");
const refs = option("refs")?.split(",");
const featureSets = option("feature-sets")?.split(",") ?? [];
if (!refs && !option("ref")) fail("--ref or --refs is required");

type Source = { repository: string; ref: string; commit: string; path: string; fileCommit: string; featureSet?: string };
type Extracted = { source: Source; group: string; version: string; kind: string; schema: Node };

/** The CRD at `file` on `ref` (or its `-Default` manifest when `preferDefault`), or undefined when the ref has neither. */
function extract(ref: string, file: string, featureSet?: string): Extracted | undefined {
  const commit = git("rev-parse", ref).trim();
  const candidates = featureSet
    ? [file.replace(/\.crd\.yaml$/, `-${featureSet}.crd.yaml`), ...(featureSet === "Default" ? [file] : [])]
    : [file];
  const found = candidates.find((c) => git("ls-tree", "--name-only", commit, c).trim() === c);
  if (!found) return undefined;
  const crd = parse(git("show", `${commit}:${found}`));
  const annotated = crd.metadata.annotations?.["release.openshift.io/feature-set"] as string | undefined;
  if (featureSet && annotated && !annotated.split(",").includes(featureSet))
    fail(`${ref}:${found} is not the ${featureSet} feature set's manifest`);
  const version = (crd.spec.versions as Node[]).find((v) => v.storage) as { name: string; schema: { openAPIV3Schema: Node } };
  return {
    source: {
      repository,
      ref,
      commit,
      path: found,
      fileCommit: git("log", "-1", "--format=%H", commit, "--", found).trim(),
      ...(annotated ? { featureSet: annotated } : {}),
    },
    group: crd.spec.group,
    version: version.name,
    kind: crd.spec.names.kind,
    schema: strip(version.schema.openAPIV3Schema, `${ref}:${crd.spec.names.kind}`),
  };
}

const outDir = path.resolve(__dirname, "../data/openapi");
mkdirSync(outDir, { recursive: true });
for (const spec of crds) {
  const [file, name] = spec.split("=");
  if (!file || !name) fail(`--crd ${spec}: expected <path>=<name>`);
  const out = path.join(outDir, `${name}.json`);
  if (!refs) {
    const data = extract(required("ref"), file) ?? fail(`${file} is not on ${option("ref")}`);
    writeFileSync(out, `${JSON.stringify(data, null, 1)}\n`);
    console.log(
      `data/openapi/${name}.json: ${data.kind}.${data.group}/${data.version} from ${repository}@${data.source.commit.slice(0, 12)}:${file}`,
    );
    continue;
  }
  const releases: Record<string, { source: Source; schema: number }> = {};
  const schemas: Node[] = [];
  let kind: Pick<Extracted, "group" | "version" | "kind"> | undefined;
  for (const ref of refs) {
    const line = /^release-(\d+\.\d+)$/.exec(ref)?.[1] ?? fail(`--refs ${ref}: expected release-<major>.<minor>`);
    const data = extract(ref, file, "Default");
    if (!data) {
      console.log(`data/openapi/${name}.json: ${ref} has no ${file}; left out`);
      continue;
    }
    // Another feature set's own manifest (TechPreviewNoUpgrade serves fields earlier), under "<line>/<feature set>".
    const others = featureSets.flatMap((fs) => {
      const other = extract(ref, file, fs);
      return other ? [[`${line}/${fs}`, other] as const] : [];
    });
    if (kind && (kind.group !== data.group || kind.version !== data.version || kind.kind !== data.kind))
      fail(`${ref}:${data.source.path} is ${data.kind}.${data.group}/${data.version}, not ${kind.kind}.${kind.group}/${kind.version}`);
    kind = { group: data.group, version: data.version, kind: data.kind };
    for (const [key, each] of [[line, data] as const, ...others]) {
      let index = schemas.findIndex((s) => isDeepStrictEqual(s, each.schema));
      if (index < 0) index = schemas.push(each.schema) - 1;
      releases[key] = { source: each.source, schema: index };
      console.log(
        `data/openapi/${name}.json: ${key} ${each.kind} from ${repository}@${each.source.commit.slice(0, 12)}:${each.source.path} (schema ${index})`,
      );
    }
  }
  if (!kind) fail(`${file} is on none of ${refs.join(", ")}`);
  writeFileSync(out, `${JSON.stringify({ ...kind, releases, schemas }, null, 1)}\n`);
}
for (const line of unsupported) console.log(`unsupported rule, skipped by the simulator: ${line}`);
