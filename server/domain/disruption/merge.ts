import type { IgnitionFileEntry, IgnitionUnitEntry, RenderedConfig } from "./machineConfig";

/**
 * MergeMachineConfigs as the MCO renders a pool's config (pkg/controller/common/helpers.go; see
 * docs/disruption.md "Merging" for the sources): configs labelled for the worker role first, then
 * the rest, each group by name; the first config's Ignition is the base and each following one is
 * merged onto it with Ignition's own merge (coreos/ignition config/merge/merge.go, below), its files'
 * compression first set to `""` when unset so that a later file's contents replace an earlier gzip
 * (`ignitionMergeSetFilesDefaultCompression`, coreos/butane#332); files
 * without `overwrite` get `overwrite: true`; FIPS if any sets it; kernel type realtime/64k-pages if
 * any sets it (the last one wins); kernel arguments and extensions concatenated in order;
 * osImageURL from the last config that sets one, else the release's default.
 */
export class MergeError extends Error {
  override name = "MergeError";
}

const ROLE_LABEL = "machineconfiguration.openshift.io/role";

type Obj = Record<string, unknown>;

/**
 * How Ignition's merge treats one field of a struct (merge.go "Rules of Config Merging"; the field
 * kinds are those of config/v3_5/types/schema.go):
 * - `value`: a non-pointer scalar (a key such as path or name, a partition number): the child's
 *   value replaces the parent's, even when the child leaves it out.
 * - `pointer`: the child's value when it sets one, else the parent's. A field Ignition does not
 *   know is treated this way too (the MCO's parser would drop it; keeping it shows the change).
 * - `struct`: merged field by field.
 * - `keyed`: a list merged by key (rule 3e/3f): an entry whose key the child also has is merged
 *   with the child's (or, for plain strings, is the child's), in the parent's order; the child's
 *   other entries are appended in its order. Lists that share a `handle` (files, directories and
 *   links: "Node") are keyed together: a parent entry whose key the child has in another of those
 *   lists is dropped, so the child's file, directory or link at a path is the only one left.
 * - `concat`: a list Ignition merges without looking at duplicates (IgnoreDuplicates): parent's
 *   entries, then the child's.
 */
type Field =
  | { kind: "value" }
  | { kind: "pointer" }
  | { kind: "struct"; of: Schema }
  | { kind: "keyed"; key: (item: unknown) => string; of?: Schema; handle?: string }
  | { kind: "concat" };
type Schema = Record<string, Field>;

const value: Field = { kind: "value" };
const pointer: Field = { kind: "pointer" };
const struct = (of: Schema): Field => ({ kind: "struct", of });
const concat: Field = { kind: "concat" };
/** util.CallKey: a string is its own key; a struct answers Key(). */
const keyed = (of?: Schema, key: (item: unknown) => string = (i) => String(i), handle?: string): Field => ({
  kind: "keyed",
  key,
  of,
  handle,
});
const byField = (field: string) => (item: unknown) => String((item as Obj | null)?.[field] ?? "");

/** HTTPHeader.Key() is its name; a child header without a value removes the parent's (merge.go). */
const HTTP_HEADERS: Field = keyed({ name: value, value: pointer }, byField("name"));
/** Resource: `contents`, `append` entries and the like. Resource.Key() is its source. */
const RESOURCE: Schema = {
  compression: pointer,
  httpHeaders: HTTP_HEADERS,
  source: pointer,
  verification: struct({ hash: pointer }),
};
const NODE: Schema = {
  group: struct({ id: pointer, name: pointer }),
  overwrite: pointer,
  path: value,
  user: struct({ id: pointer, name: pointer }),
};
const nodeList = (extra: Schema) => keyed({ ...NODE, ...extra }, byField("path"), "Node");

const FILE = nodeList({ append: concat, contents: struct(RESOURCE), mode: pointer });
const DIRECTORY = nodeList({ mode: pointer });
const LINK = nodeList({ hard: pointer, target: pointer });
const UNIT = keyed(
  { contents: pointer, dropins: keyed({ contents: pointer, name: value }, byField("name")), enabled: pointer, mask: pointer, name: value },
  byField("name"),
);
const USER = keyed(
  {
    gecos: pointer,
    groups: keyed(),
    homeDir: pointer,
    name: value,
    noCreateHome: pointer,
    noLogInit: pointer,
    noUserGroup: pointer,
    passwordHash: pointer,
    primaryGroup: pointer,
    sshAuthorizedKeys: keyed(),
    shell: pointer,
    shouldExist: pointer,
    system: pointer,
    uid: pointer,
  },
  byField("name"),
);
const GROUP = keyed({ gid: pointer, name: value, passwordHash: pointer, shouldExist: pointer, system: pointer }, byField("name"));
/** Partition.Key(): "number:N" when it has a number, else "label:L", else "". */
const partitionKey = (item: unknown) => {
  const p = (item ?? {}) as Obj;
  if (typeof p.number === "number" && p.number !== 0) return `number:${p.number}`;
  return p.label !== null && p.label !== undefined ? `label:${String(p.label)}` : "";
};
const DISK = keyed(
  {
    device: value,
    partitions: keyed(
      {
        guid: pointer,
        label: pointer,
        number: value,
        resize: pointer,
        shouldExist: pointer,
        sizeMiB: pointer,
        startMiB: pointer,
        typeGuid: pointer,
        wipePartitionEntry: pointer,
      },
      partitionKey,
    ),
    wipeTable: pointer,
  },
  byField("device"),
);
const FILESYSTEM = keyed(
  {
    device: value,
    format: pointer,
    label: pointer,
    mountOptions: concat,
    options: concat,
    path: pointer,
    uuid: pointer,
    wipeFilesystem: pointer,
  },
  byField("device"),
);
const RAID = keyed({ devices: keyed(), level: pointer, name: value, options: concat, spares: pointer }, byField("name"));

const STORAGE: Schema = { directories: DIRECTORY, disks: DISK, files: FILE, filesystems: FILESYSTEM, links: LINK, raid: RAID };
const PASSWD: Schema = { groups: GROUP, users: USER };
const SYSTEMD: Schema = { units: UNIT };
/**
 * KernelArguments: two lists of strings merged by value. (Ignition's types/kargs.go, which may key
 * the two lists together, is not in the indexed sources; any change to this section is refused, §2.)
 */
const KERNEL_ARGUMENTS: Schema = { shouldExist: keyed(), shouldNotExist: keyed() };

const isSet = (v: unknown) => v !== null && v !== undefined;
const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function mergeStruct(parent: unknown, child: unknown, schema: Schema): Obj {
  const p = (parent ?? {}) as Obj;
  const c = (child ?? {}) as Obj;
  const out: Obj = {};
  // mergeStruct's structInfo: every keyed list of the child, by handle and key, with the list it is
  // in. For duplicate keys the child's last entry wins (a Go map assignment).
  const childKeys = new Map<string, { list: string; item: unknown }>();
  for (const [name, field] of Object.entries(schema)) {
    if (field.kind !== "keyed") continue;
    for (const item of listOf(c[name])) childKeys.set(`${field.handle ?? name}\u0000${field.key(item)}`, { list: name, item });
  }
  for (const name of new Set([...Object.keys(schema), ...Object.keys(p), ...Object.keys(c)])) {
    const field = schema[name] ?? pointer;
    let merged: unknown;
    switch (field.kind) {
      case "value":
        merged = c[name];
        break;
      case "pointer":
        merged = isSet(c[name]) ? c[name] : p[name];
        break;
      case "struct":
        merged = mergeStruct(p[name], c[name], field.of);
        break;
      case "concat": {
        const all = [...listOf(p[name]), ...listOf(c[name])];
        merged = all.length > 0 ? all : undefined;
        break;
      }
      case "keyed": {
        const parentList = listOf(p[name]);
        const childList = listOf(c[name]);
        if (parentList.length + childList.length === 0) break;
        const result: unknown[] = [];
        const parentKeys = new Set(parentList.map(field.key));
        for (const item of parentList) {
          const match = childKeys.get(`${field.handle ?? name}\u0000${field.key(item)}`);
          if (!match) result.push(item);
          else if (match.list === name) {
            if (!field.of) result.push(match.item);
            else if (field === HTTP_HEADERS && !isSet((match.item as Obj | null)?.value)) continue;
            else result.push(mergeStruct(item, match.item, field.of));
          }
          // Else the child has this key in another list sharing the handle: the parent's entry goes.
        }
        for (const item of childList) if (!parentKeys.has(field.key(item))) result.push(item);
        merged = result;
        break;
      }
    }
    if (merged !== undefined) out[name] = merged;
  }
  return out;
}

/**
 * What the MCO's JSON encoder (clarketm/json, every Ignition field `omitempty`) writes: no nil
 * fields, no empty lists, no empty structs. A pointer to a zero value (`enabled: false`,
 * `passwordHash: ""`) stays.
 */
function marshalled(v: unknown): unknown {
  if (Array.isArray(v)) {
    const items = v.map(marshalled);
    return items.length > 0 ? items : undefined;
  }
  if (v !== null && typeof v === "object") {
    const out: Obj = {};
    for (const [k, x] of Object.entries(v)) {
      const m = marshalled(x);
      if (m !== undefined) out[k] = m;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  return v === null ? undefined : v;
}

/** The Ignition sections a RenderedConfig carries, as one Ignition config. */
function ignitionOf(c: RenderedConfig): Obj {
  return {
    kernelArguments: c.ignitionKernelArguments,
    passwd: { groups: c.passwd.groups, users: c.passwd.users },
    storage: {
      directories: c.storage.directories,
      disks: c.storage.disks,
      files: c.files,
      filesystems: c.storage.filesystems,
      links: c.storage.links,
      raid: c.storage.raid,
    },
    systemd: { units: c.units },
  };
}

/**
 * `ignitionMergeSetFilesDefaultCompression` (helpers.go), run on each config before it is merged
 * on: every file of that config without a compression gets `""`, so its contents replace an
 * earlier config's gzip as a whole instead of keeping the old compression next to new content.
 * A file without `contents` counts too: in Go `contents` is a struct, never absent.
 */
function setDefaultCompression(ignition: Obj): Obj {
  const storage = (ignition.storage ?? {}) as Obj;
  const files = listOf(storage.files).map((f) => {
    const file = (f ?? {}) as Obj;
    const contents = (file.contents ?? {}) as Obj;
    return isSet(contents.compression) ? file : { ...file, contents: { ...contents, compression: "" } };
  });
  return { ...ignition, storage: { ...storage, files } };
}

/** `ignitionMergeUnsetFilesDefaultCompression` (helpers.go), after each merge: `""` back to unset. */
function unsetDefaultCompression(ignition: Obj): Obj {
  const storage = (ignition.storage ?? {}) as Obj;
  if (!Array.isArray(storage.files)) return ignition;
  const files = storage.files.map((f) => {
    const file = (f ?? {}) as Obj;
    const contents = file.contents as Obj | undefined;
    if (contents?.compression !== "") return file;
    const { compression: _dropped, ...rest } = contents;
    return { ...file, contents: rest };
  });
  return { ...ignition, storage: { ...storage, files } };
}

const CONFIG: Schema = {
  kernelArguments: struct(KERNEL_ARGUMENTS),
  passwd: struct(PASSWD),
  storage: struct(STORAGE),
  systemd: struct(SYSTEMD),
};

export function mergeMachineConfigs(configs: RenderedConfig[], defaultOsImageURL: string): RenderedConfig {
  if (configs.length === 0) throw new MergeError("a pool needs at least one MachineConfig");
  const byName = (a: RenderedConfig, b: RenderedConfig) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const workers = configs.filter((c) => c.labels[ROLE_LABEL] === "worker").sort(byName);
  const others = configs.filter((c) => c.labels[ROLE_LABEL] !== "worker").sort(byName);
  const ordered = [...workers, ...others];
  const [first, ...rest] = ordered as [RenderedConfig, ...RenderedConfig[]];

  let ignition = ignitionOf(first);
  for (const c of rest) ignition = unsetDefaultCompression(mergeStruct(ignition, setDefaultCompression(ignitionOf(c)), CONFIG));
  const storage = (ignition.storage ?? {}) as Obj;
  const files = listOf(storage.files).map((f) => {
    const file = f as IgnitionFileEntry;
    return isSet(file.overwrite) ? file : { ...file, overwrite: true };
  });
  const out = (marshalled({ ...ignition, storage: { ...storage, files } }) ?? {}) as {
    kernelArguments?: unknown;
    passwd?: { users?: Obj[]; groups?: Obj[] };
    storage?: { files?: IgnitionFileEntry[]; directories?: Obj[]; links?: Obj[]; disks?: Obj[]; filesystems?: Obj[]; raid?: Obj[] };
    systemd?: { units?: IgnitionUnitEntry[] };
  };

  let kernelType = "";
  for (const c of ordered) if (c.kernelType === "realtime" || c.kernelType === "64k-pages") kernelType = c.kernelType;
  kernelType ||= "default";
  const extensions = ordered.flatMap((c) => c.extensions);
  if (kernelType !== "default" && extensions.includes("kernel-devel")) {
    throw new MergeError(`installing kernel-devel extension is not supported with kernelType: ${kernelType}`);
  }
  let osImageURL = defaultOsImageURL;
  for (const c of ordered) if (c.osImageURL) osImageURL = c.osImageURL;

  return {
    name: "rendered",
    files: out.storage?.files ?? null,
    units: out.systemd?.units ?? null,
    passwd: { users: out.passwd?.users ?? null, groups: out.passwd?.groups ?? null },
    storage: {
      directories: out.storage?.directories ?? null,
      links: out.storage?.links ?? null,
      disks: out.storage?.disks ?? null,
      filesystems: out.storage?.filesystems ?? null,
      raid: out.storage?.raid ?? null,
    },
    ignitionKernelArguments: out.kernelArguments ?? null,
    kernelArguments: ordered.flatMap((c) => c.kernelArguments),
    extensions,
    kernelType,
    fips: ordered.some((c) => c.fips),
    osImageURL,
    baseOsImageURL: osImageURL,
    oclImage: null,
    imageMode: false,
    labels: {},
  };
}
