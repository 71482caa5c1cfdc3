import type { IgnitionFileEntry, IgnitionUnitEntry, RenderedConfig } from "./machineConfig";

/**
 * MergeMachineConfigs as the MCO renders a pool's config (pkg/controller/common/helpers.go; see
 * docs/disruption.md for the source): configs labelled for the worker role first, then the rest,
 * each group by name; the first config's Ignition is the base and the others are merged onto it
 * (entries with the same key replace field by field, new ones are appended); files without
 * `overwrite` get `overwrite: true`; FIPS if any sets it; kernel type realtime/64k-pages if any sets
 * it (the last one wins); kernel arguments and extensions concatenated in order; osImageURL from the
 * last config that sets one, else the release's default.
 */
export class MergeError extends Error {
  override name = "MergeError";
}

const ROLE_LABEL = "machineconfiguration.openshift.io/role";

/** Ignition's merge of keyed lists: a child entry with the same key overrides the parent's fields. */
function mergeKeyed<T extends Record<string, unknown>>(
  parent: T[],
  child: T[],
  key: (t: T) => string,
  mergeEntry: (a: T, b: T) => T = (a, b) => ({ ...a, ...b }),
): T[] {
  const out = parent.map((p) => ({ ...p }));
  for (const c of child) {
    const at = out.findIndex((p) => key(p) === key(c));
    if (at >= 0) out[at] = mergeEntry(out[at]!, c);
    else out.push({ ...c });
  }
  return out;
}

const dropNullish = <T extends Record<string, unknown>>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined)) as T;

function mergeUnit(a: IgnitionUnitEntry, b: IgnitionUnitEntry): IgnitionUnitEntry {
  const merged = { ...a, ...dropNullish(b) };
  if (a.dropins || b.dropins)
    merged.dropins = mergeKeyed((a.dropins ?? []) as Record<string, unknown>[], (b.dropins ?? []) as Record<string, unknown>[], (d) =>
      String(d.name),
    ) as IgnitionUnitEntry["dropins"];
  return merged;
}

export function mergeMachineConfigs(configs: RenderedConfig[], defaultOsImageURL: string): RenderedConfig {
  if (configs.length === 0) throw new MergeError("a pool needs at least one MachineConfig");
  const byName = (a: RenderedConfig, b: RenderedConfig) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const workers = configs.filter((c) => c.labels[ROLE_LABEL] === "worker").sort(byName);
  const others = configs.filter((c) => c.labels[ROLE_LABEL] !== "worker").sort(byName);
  const ordered = [...workers, ...others];
  const [first, ...rest] = ordered as [RenderedConfig, ...RenderedConfig[]];

  let files = first.files.map((f) => ({ ...f })) as IgnitionFileEntry[];
  let units = first.units.map((u) => ({ ...u })) as IgnitionUnitEntry[];
  let users = first.passwd.users.map((u) => ({ ...u }));
  let groups = first.passwd.groups.map((g) => ({ ...g }));
  const storage = { ...first.storage };
  for (const c of rest) {
    files = mergeKeyed(
      files,
      c.files,
      (f) => f.path,
      (a, b) => ({ ...a, ...dropNullish(b) }),
    );
    units = mergeKeyed(units, c.units, (u) => u.name, mergeUnit);
    users = mergeKeyed(users, c.passwd.users, (u) => String(u.name));
    groups = mergeKeyed(groups, c.passwd.groups, (g) => String(g.name));
    storage.directories = mergeKeyed(
      storage.directories as Record<string, unknown>[],
      c.storage.directories as Record<string, unknown>[],
      (d) => String(d.path),
    );
    storage.links = mergeKeyed(storage.links as Record<string, unknown>[], c.storage.links as Record<string, unknown>[], (l) =>
      String(l.path),
    );
    storage.disks = mergeKeyed(storage.disks as Record<string, unknown>[], c.storage.disks as Record<string, unknown>[], (d) =>
      String(d.device),
    );
    storage.filesystems = mergeKeyed(
      storage.filesystems as Record<string, unknown>[],
      c.storage.filesystems as Record<string, unknown>[],
      (f) => String(f.device),
    );
    storage.raid = mergeKeyed(storage.raid as Record<string, unknown>[], c.storage.raid as Record<string, unknown>[], (r) =>
      String(r.name),
    );
  }
  files = files.map((f) => (f.overwrite === undefined || f.overwrite === null ? { ...f, overwrite: true } : f));

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
    files,
    units,
    passwd: { users, groups },
    storage,
    ignitionKernelArguments: ordered.map((c) => c.ignitionKernelArguments).find((k) => k) ?? null,
    kernelArguments: ordered.flatMap((c) => c.kernelArguments),
    extensions,
    kernelType,
    fips: ordered.some((c) => c.fips),
    osImageURL,
    oclImage: null,
    labels: {},
  };
}
