import clusterPermissions from "../../../data/openapi/clusterpermissions.json";
import clusterVersions from "../../../data/openapi/clusterversions.json";
import machineConfigurations from "../../../data/openapi/machineconfigurations.json";
import managedServiceAccounts from "../../../data/openapi/managedserviceaccounts.json";
import pinnedImageSets from "../../../data/openapi/pinnedimagesets.json";
import type { Schema } from "./validate";

/*
 * The CRD schemas the simulated API servers hold objects to (data/openapi, written by
 * scripts/extract-crd-schemas.ts; docs/simulator.md "What the simulated API server refuses"). The
 * OpenShift kinds come per release line (openshift/api `release-4.N`, Default feature set, plus
 * TechPreviewNoUpgrade/DevPreviewNoUpgrade where their manifest differs); the hub's kinds come once.
 */

export type Source = { repository: string; ref: string; commit: string; path: string; fileCommit: string; featureSet?: string };

/** One file of data/openapi: one schema for every version (the hub's), or one per release line. */
type SchemaFile =
  | { group: string; version: string; kind: string; source: Source; schema: unknown }
  | { group: string; version: string; kind: string; releases: Record<string, { source: Source; schema: number }>; schemas: unknown[] };

export type ResolvedSchema = {
  schema: Schema;
  /** The release line the schema was read from ("4.21"), or undefined for a kind whose schema does not depend on it. */
  release?: string;
  source: Source;
};

/** Which cluster a schema is picked for: its OpenShift minor (4.<minor>) and feature set. */
export type SchemaTarget = { minor: number; featureSet?: string };

const FILES = [pinnedImageSets, machineConfigurations, clusterVersions, clusterPermissions, managedServiceAccounts] as SchemaFile[];
const BY_KIND = new Map(FILES.map((f) => [`${f.group}/${f.version}/${f.kind}`, f]));

const minorOf = (line: string) => Number(line.split(".")[1]);

/**
 * The schema of a kind on a cluster: the release line of the cluster's minor, else the nearest older
 * line the data has, else (a cluster older than every extracted line) the oldest; within it, the
 * cluster's feature set's own manifest where that line has one. Undefined when the simulator holds
 * no schema for the kind.
 */
export function resolveSchema(kind: { group: string; version: string; kind: string }, target?: SchemaTarget): ResolvedSchema | undefined {
  // Asked on every write and by the reconciler's ticks: the answer per kind and target is kept.
  const key = `${kind.group}/${kind.version}/${kind.kind}|${target?.minor ?? ""}|${target?.featureSet ?? ""}`;
  if (!RESOLVED.has(key)) RESOLVED.set(key, resolve(kind, target));
  return RESOLVED.get(key);
}

const RESOLVED = new Map<string, ResolvedSchema | undefined>();

function resolve(kind: { group: string; version: string; kind: string }, target?: SchemaTarget): ResolvedSchema | undefined {
  const file = BY_KIND.get(`${kind.group}/${kind.version}/${kind.kind}`);
  if (!file) return undefined;
  if ("schema" in file) return { schema: file.schema as Schema, source: file.source };
  const lines = Object.keys(file.releases)
    .filter((k) => !k.includes("/"))
    .sort((a, b) => minorOf(a) - minorOf(b));
  const minor = target?.minor ?? minorOf(lines.at(-1)!);
  const line = [...lines].reverse().find((l) => minorOf(l) <= minor) ?? lines[0]!;
  const entry = (target?.featureSet && file.releases[`${line}/${target.featureSet}`]) || file.releases[line]!;
  return { schema: file.schemas[entry.schema] as Schema, release: line, source: entry.source };
}

/** The release lines a kind's schemas were extracted from, oldest first (for tests and docs). */
export function releaseLines(kind: { group: string; version: string; kind: string }): string[] {
  const file = BY_KIND.get(`${kind.group}/${kind.version}/${kind.kind}`);
  if (!file || "schema" in file) return [];
  return Object.keys(file.releases)
    .filter((k) => !k.includes("/"))
    .sort((a, b) => minorOf(a) - minorOf(b));
}
