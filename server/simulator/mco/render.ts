/**
 * The render controller's merge of a pool's MachineConfigs into its rendered config, as far as the
 * simulated clusters' own configs need it (pkg/controller/common/helpers.go `MergeMachineConfigs`,
 * release-4.22): worker-role configs first, each group sorted by name; Ignition's merge
 * (coreos/ignition config/merge) over files by path, units by name (dropins by name) and users by
 * name, a later config's fields replacing an earlier one's (a later file without a compression
 * clearing an earlier gzip, `ignitionMergeSetFilesDefaultCompression`), lists of plain values joined without
 * repeats; every file without `overwrite` gets `overwrite: true`; FIPS if any config sets it, the
 * kernel type of the last realtime/64k-pages config else "default", kernel arguments and extensions
 * concatenated in order; osImageURL from the controller config unless a config overrides it.
 */
type Any = Record<string, any>;

const ROLE = "machineconfiguration.openshift.io/role";

function mergeValue(parent: unknown, child: unknown): unknown {
  if (child === undefined || child === null) return parent;
  if (Array.isArray(child) && Array.isArray(parent)) return mergeList(parent, child);
  if (isObject(child) && isObject(parent)) {
    const out: Any = { ...parent };
    for (const [k, v] of Object.entries(child)) out[k] = mergeValue(parent[k], v);
    return out;
  }
  return child;
}

const isObject = (v: unknown): v is Any => !!v && typeof v === "object" && !Array.isArray(v);
const keyOf = (v: unknown) => (isObject(v) ? (v.path ?? v.name) : v);

/** Keyed lists merge entry by entry; lists of plain values keep the parent's and add the child's new ones. */
function mergeList(parent: unknown[], child: unknown[]): unknown[] {
  const out = [...parent];
  for (const item of child) {
    const key = keyOf(item);
    const at = out.findIndex((o) => keyOf(o) === key && key !== undefined);
    if (at >= 0) out[at] = isObject(item) ? mergeValue(out[at], item) : item;
    else out.push(item);
  }
  return out;
}

/**
 * `ignitionMergeSetFilesDefaultCompression` on each config merged onto the first: a file without a
 * compression gets "" so that it replaces an earlier gzip; `ignitionMergeUnsetFilesDefaultCompression`
 * then turns "" back into unset (helpers.go, after coreos/butane#332).
 */
function withDefaultCompression(config: Any): Any {
  const files = config.storage?.files;
  if (!Array.isArray(files)) return config;
  const set = files.map((f: Any) => (f?.contents?.compression != null ? f : { ...f, contents: { ...f?.contents, compression: "" } }));
  return { ...config, storage: { ...config.storage, files: set } };
}

function withoutEmptyCompression(ignition: Any): Any {
  const files = ignition.storage?.files;
  if (!Array.isArray(files)) return ignition;
  const unset = files.map((f: Any) => {
    if (f?.contents?.compression !== "") return f;
    const { compression: _unset, ...contents } = f.contents;
    return { ...f, contents };
  });
  return { ...ignition, storage: { ...ignition.storage, files: unset } };
}

export function mergeMachineConfigs(configs: Any[], osImageURL: string): Any {
  const sorted = [
    ...configs.filter((c) => c.metadata?.labels?.[ROLE] === "worker").sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1)),
    ...configs.filter((c) => c.metadata?.labels?.[ROLE] !== "worker").sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1)),
  ];
  let ignition: Any = { ignition: { version: "3.5.0" } };
  sorted.forEach((c, i) => {
    const config = c.spec?.config ?? {};
    if (i === 0) ignition = mergeValue(ignition, config) as Any;
    else ignition = withoutEmptyCompression(mergeValue(ignition, withDefaultCompression(config)) as Any);
  });
  ignition.ignition = { version: "3.5.0" };
  for (const f of (ignition.storage?.files ?? []) as Any[]) f.overwrite ??= true;
  const kernelType = [...sorted].reverse().find((c) => c.spec?.kernelType === "realtime" || c.spec?.kernelType === "64k-pages")
    ?.spec?.kernelType;
  const override = sorted
    .map((c) => c.spec?.osImageURL)
    .filter((u) => u && u !== osImageURL)
    .at(-1);
  return {
    config: ignition,
    fips: sorted.some((c) => c.spec?.fips === true),
    kernelType: kernelType ?? "default",
    kernelArguments: sorted.flatMap((c) => c.spec?.kernelArguments ?? []),
    extensions: sorted.flatMap((c) => c.spec?.extensions ?? []),
    osImageURL: override ?? osImageURL,
  };
}
