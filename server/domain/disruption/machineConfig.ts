import { gunzipSync } from "node:zlib";
import { parseAllDocuments, type DocumentOptions, type ParseOptions, type SchemaOptions } from "yaml";
import { z } from "zod";
import { toIgnitionSpec35 } from "./ignitionSpec";

/**
 * A MachineConfig (machineconfiguration.openshift.io/v1) as the disruption engine needs it: the
 * Ignition 3.x sections the MCO compares, kept raw for comparison (any field difference counts,
 * docs/openshift.md §3), plus decoded file contents for people to read.
 */
export const OCL_IMAGE_ANNOTATION = "machineconfiguration.openshift.io/ocl-osimageurl";
export const ORIGINAL_OS_IMAGE_ANNOTATION = "machineconfiguration.openshift.io/original-osimageurl";

const Loose = z.looseObject({});
const IgnitionFile = z.looseObject({
  path: z.string(),
  contents: z
    .looseObject({ source: z.string().nullable().optional(), compression: z.string().nullable().optional() })
    .nullable()
    .optional(),
  append: z.array(z.unknown()).nullable().optional(),
  mode: z.number().nullable().optional(),
  overwrite: z.boolean().nullable().optional(),
});
const IgnitionUnit = z.looseObject({
  name: z.string(),
  enabled: z.boolean().nullable().optional(),
  mask: z.boolean().nullable().optional(),
  contents: z.string().nullable().optional(),
  dropins: z
    .array(z.looseObject({ name: z.string(), contents: z.string().nullable().optional() }))
    .nullable()
    .optional(),
});

export const MachineConfigSchema = z.looseObject({
  apiVersion: z
    .string()
    .refine((v) => v.startsWith("machineconfiguration.openshift.io/"), "apiVersion must be machineconfiguration.openshift.io/v1"),
  kind: z.literal("MachineConfig", { error: "kind must be MachineConfig" }),
  metadata: z
    .looseObject({
      name: z.string().optional(),
      labels: z.record(z.string(), z.string()).optional(),
      annotations: z.record(z.string(), z.string()).optional(),
    })
    .default({}),
  spec: z
    .looseObject({
      config: z
        .looseObject({
          ignition: z.looseObject({ version: z.string().optional() }).optional(),
          storage: z
            .looseObject({
              files: z.array(IgnitionFile).nullable().optional(),
              directories: z.array(Loose).nullable().optional(),
              links: z.array(Loose).nullable().optional(),
              disks: z.array(Loose).nullable().optional(),
              filesystems: z.array(Loose).nullable().optional(),
              raid: z.array(Loose).nullable().optional(),
            })
            .nullable()
            .optional(),
          systemd: z
            .looseObject({ units: z.array(IgnitionUnit).nullable().optional() })
            .nullable()
            .optional(),
          passwd: z
            .looseObject({ users: z.array(Loose).nullable().optional(), groups: z.array(Loose).nullable().optional() })
            .nullable()
            .optional(),
          kernelArguments: z.looseObject({}).nullable().optional(),
        })
        .nullable()
        .optional(),
      kernelArguments: z.array(z.string()).nullable().optional(),
      extensions: z.array(z.string()).nullable().optional(),
      kernelType: z.string().nullable().optional(),
      fips: z.boolean().nullable().optional(),
      osImageURL: z.string().nullable().optional(),
    })
    .default({}),
});

export type IgnitionFileEntry = z.infer<typeof IgnitionFile>;
export type IgnitionUnitEntry = z.infer<typeof IgnitionUnit>;

/**
 * The Ignition lists keep the difference between absent (null) and empty ([]): the MCO compares them
 * with reflect.DeepEqual on Go slices, where a nil slice and an empty one differ (§2, §3), so
 * `passwd.users: []` against no users at all is a passwd change. A rendered config written by the
 * MCO never holds an empty list (its JSON encoder omits them), so this only shows in hand-made input.
 */
export type RenderedConfig = {
  name: string;
  files: IgnitionFileEntry[] | null;
  units: IgnitionUnitEntry[] | null;
  passwd: { users: Record<string, unknown>[] | null; groups: Record<string, unknown>[] | null };
  storage: {
    directories: Record<string, unknown>[] | null;
    links: Record<string, unknown>[] | null;
    disks: Record<string, unknown>[] | null;
    filesystems: Record<string, unknown>[] | null;
    raid: Record<string, unknown>[] | null;
  };
  ignitionKernelArguments: unknown;
  kernelArguments: string[];
  extensions: string[];
  kernelType: string;
  fips: boolean;
  /** spec.osImageURL as written; on an image-mode node's config the MCD has put the built image here. */
  osImageURL: string;
  /**
   * The pool's base OS image, as the MCO's extractOCLImageFromMachineConfig restores it: on a config
   * carrying either image-mode annotation, the original-osimageurl value ("" when only the other
   * annotation is there); otherwise spec.osImageURL (docs/openshift.md §9).
   */
  baseOsImageURL: string;
  /** The image-mode image the MCD embedded (the ocl-osimageurl annotation), or null (docs/openshift.md §9). */
  oclImage: string | null;
  /** Either image-mode annotation is present: the config is an image-mode pool's (docs/openshift.md §9). */
  imageMode: boolean;
  labels: Record<string, string>;
  /**
   * The Ignition spec version the config was written in (null: none given, read as the current spec;
   * absent: built here, e.g. a merged rendered config, which the MCO writes as spec 3). It decides how
   * an invalid config is refused: spec 3 by Ignition's parser, spec 2 by ValidateIgnition (§2).
   */
  ignitionSpec?: string | null;
};

/** A list as code reads it: an absent list has no entries. */
export const entries = <T>(list: T[] | null | undefined): T[] => list ?? [];

export class MachineConfigError extends Error {
  override name = "MachineConfigError";
}

/** The document with spec.config as the MCO parses and converts it (ignitionSpec.ts); its errors are the MCO's. */
function withIgnitionSpec35(doc: unknown, label: string): { doc: unknown; from: string | null } {
  const config = (doc as { spec?: { config?: unknown } } | null)?.spec?.config;
  if (config === undefined || config === null || typeof config !== "object") return { doc, from: null };
  const converted = toIgnitionSpec35(config);
  if (!converted.ok) throw new MachineConfigError(`${label} cannot be read as the MCO reads it: ${converted.error}`);
  return { doc: { ...(doc as object), spec: { ...(doc as { spec: object }).spec, config: converted.config } }, from: converted.from };
}

/** Validates a parsed document as a MachineConfig and normalises it; throws MachineConfigError with the reason. */
export function readMachineConfig(doc: unknown, label = "input"): RenderedConfig {
  const converted = withIgnitionSpec35(doc, label);
  const parsed = MachineConfigSchema.safeParse(converted.doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new MachineConfigError(`${label} is not a MachineConfig: ${issue.path.join(".") || "document"}: ${issue.message}`);
  }
  const mc = parsed.data;
  const config = mc.spec.config ?? {};
  const storage = config.storage ?? {};
  const annotations = mc.metadata.annotations ?? {};
  const imageMode = OCL_IMAGE_ANNOTATION in annotations || ORIGINAL_OS_IMAGE_ANNOTATION in annotations;
  const list = <T>(value: T[] | null | undefined): T[] | null => value ?? null;
  return {
    name: mc.metadata.name ?? label,
    files: list(storage.files),
    units: list(config.systemd?.units),
    passwd: {
      users: list(config.passwd?.users as Record<string, unknown>[] | null | undefined),
      groups: list(config.passwd?.groups as Record<string, unknown>[] | null | undefined),
    },
    storage: {
      directories: list(storage.directories),
      links: list(storage.links),
      disks: list(storage.disks),
      filesystems: list(storage.filesystems),
      raid: list(storage.raid),
    },
    ignitionKernelArguments: config.kernelArguments ?? null,
    kernelArguments: mc.spec.kernelArguments ?? [],
    extensions: mc.spec.extensions ?? [],
    kernelType: mc.spec.kernelType ?? "",
    fips: mc.spec.fips ?? false,
    osImageURL: mc.spec.osImageURL ?? "",
    baseOsImageURL: imageMode ? (annotations[ORIGINAL_OS_IMAGE_ANNOTATION] ?? "") : (mc.spec.osImageURL ?? ""),
    oclImage: annotations[OCL_IMAGE_ANNOTATION] || null,
    imageMode,
    labels: mc.metadata.labels ?? {},
    ignitionSpec: converted.from,
  };
}

/**
 * How Kubernetes reads YAML manifests (sigs.k8s.io/yaml on go-yaml v2, i.e. YAML 1.1): `mode: 0644`
 * is octal 420, `yes`/`on` are booleans. go-yaml v2 has no sexagesimal numbers and turns timestamps
 * back into strings, so those two YAML 1.1 tags are left out and such scalars stay strings. JSON
 * reads the same under either YAML version (its strings are quoted, its numbers are decimal).
 */
export const KUBERNETES_YAML: ParseOptions & DocumentOptions & SchemaOptions = {
  version: "1.1",
  customTags: (tags) => tags.filter((t) => typeof t !== "object" || (t.tag !== "tag:yaml.org,2002:timestamp" && t.format !== "TIME")),
};

/**
 * Bounds on what a MachineConfig may expand to. A real one is an object in etcd (at most ~1.5 MiB),
 * but gzip and YAML aliases let a small document stand for a very large one, so decoding stops at
 * these limits and the preview answers with what was too large.
 */
export const DECODE_LIMITS = {
  /** Anchored YAML nodes may be referenced this often in all (the yaml library's maxAliasCount). */
  maxAliasCount: 50,
  /** Files (storage.files entries) in one MachineConfig. */
  maxFiles: 2_000,
  /** One file's contents, decoded (after base64 and gzip). */
  maxFileBytes: 8 * 1024 * 1024,
  /** All of one MachineConfig's (or one pool's) file contents, decoded, counted per entry. */
  maxTotalBytes: 32 * 1024 * 1024,
};

export type ParsedDocument = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * Reads one YAML or JSON document (a stream with exactly one non-empty document) as Kubernetes
 * would. Total: a syntax error, a resource-exhaustion guard of the YAML library (e.g. "Excessive
 * alias count") or anything else it cannot read comes back as an error value, never thrown.
 */
export function parseManifest(text: string): ParsedDocument {
  try {
    const docs = parseAllDocuments(text, KUBERNETES_YAML);
    const list = Array.isArray(docs) ? docs : [docs];
    const bad = list.find((d) => d.errors.length > 0);
    if (bad) return { ok: false, error: `is not valid YAML or JSON: ${bad.errors[0]!.message.split("\n")[0]}` };
    const values = list.map((d) => d.toJS({ maxAliasCount: DECODE_LIMITS.maxAliasCount })).filter((v) => v !== null && v !== undefined);
    if (values.length !== 1) return { ok: false, error: `must hold exactly one object (found ${values.length})` };
    return { ok: true, value: values[0] };
  } catch (error) {
    return { ok: false, error: `is not valid YAML or JSON: ${String((error as Error)?.message ?? error).split("\n")[0]}` };
  }
}

export type DecodedContents = { text: string | null; bytes: number; note: string | null };

/**
 * Gzip-compressed contents inflated ahead of time (asynchronously, within limits, by the caller),
 * by `contents.source`. What is not in it is inflated here, synchronously, up to maxFileBytes.
 */
export type InflatedSources = ReadonlyMap<string, Uint8Array>;

/** The bytes of a data URL before any decompression; null for a remote source, "invalid" when it cannot be decoded. */
export function dataUrlBytes(source: string): Buffer | null | "invalid" {
  const m = /^data:([^,]*?),(.*)$/s.exec(source);
  if (!m) return null;
  try {
    return m[1]!.split(";").includes("base64") ? Buffer.from(m[2]!, "base64") : Buffer.from(decodeURIComponent(m[2]!), "utf8");
  } catch {
    return "invalid";
  }
}

/**
 * Decodes an Ignition `contents.source`: a data URL (percent-encoded or base64), optionally gzip
 * compressed. A remote source (https, s3, …) cannot be inspected. Never throws.
 */
export function decodeContents(file: IgnitionFileEntry | undefined, inflated?: InflatedSources): DecodedContents {
  const source = file?.contents?.source;
  if (source === undefined || source === null || source === "")
    return { text: "", bytes: 0, note: source === undefined || source === null ? "no contents" : null };
  const raw = dataUrlBytes(source);
  if (raw === null) return { text: null, bytes: 0, note: `remote source (${source.split(":")[0]}); its contents cannot be inspected` };
  if (raw === "invalid") return { text: null, bytes: 0, note: "the data URL cannot be decoded" };
  let data: Buffer = raw;
  if (file?.contents?.compression === "gzip") {
    const ready = inflated?.get(source);
    if (ready) data = Buffer.from(ready.buffer, ready.byteOffset, ready.byteLength);
    else
      try {
        data = gunzipSync(raw, { maxOutputLength: DECODE_LIMITS.maxFileBytes });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE")
          return {
            text: null,
            bytes: raw.length,
            note: `inflates to more than ${DECODE_LIMITS.maxFileBytes / 1024 / 1024} MiB; not inspected`,
          };
        return { text: null, bytes: raw.length, note: "declared gzip but does not decompress" };
      }
  }
  const text = data.toString("utf8");
  const binary = text.includes("\uFFFD") || /[\x00-\x08\x0E-\x1F]/.test(text);
  return binary ? { text: null, bytes: data.length, note: "binary contents" } : { text, bytes: data.length, note: null };
}

/** A MachineConfig document from a (merged) rendered config, as the MCO stores rendered-<pool>-<hash> objects. */
export function toMachineConfigDocument(
  config: RenderedConfig,
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> },
) {
  // Written as the MCO writes a rendered config: absent and empty lists are both left out.
  const some = <K extends string, T>(key: K, value: T[] | null) => (value && value.length ? { [key]: value } : {});
  return {
    apiVersion: "machineconfiguration.openshift.io/v1",
    kind: "MachineConfig",
    metadata,
    spec: {
      config: {
        ignition: { version: "3.5.0" },
        storage: {
          ...some("files", config.files),
          ...some("directories", config.storage.directories),
          ...some("links", config.storage.links),
          ...some("disks", config.storage.disks),
          ...some("filesystems", config.storage.filesystems),
          ...some("raid", config.storage.raid),
        },
        systemd: { ...some("units", config.units) },
        passwd: { ...some("users", config.passwd.users), ...some("groups", config.passwd.groups) },
        ...(config.ignitionKernelArguments ? { kernelArguments: config.ignitionKernelArguments } : {}),
      },
      kernelArguments: config.kernelArguments,
      extensions: config.extensions,
      kernelType: config.kernelType,
      fips: config.fips,
      osImageURL: config.osImageURL,
    },
  };
}
