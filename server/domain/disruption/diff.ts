import { isDeepStrictEqual } from "node:util";
import { entries, type RenderedConfig } from "./machineConfig";

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/**
 * The form two Ignition values are compared in (docs/openshift.md §3, the MCO's reflect.DeepEqual on Go
 * structs): null/undefined fields are dropped, because Go's nil pointer and an absent field decode
 * equal; and so are fields holding an empty object (after their own fields are made canonical),
 * because Ignition's nested types (`contents`, `verification`, `user`, `group`, …) are non-pointer
 * structs, so `{}` and an absent field decode to the same zero value. Arrays and scalars are kept
 * as they are: a nil slice and an empty one differ in reflect.DeepEqual. (The reader keeps an absent
 * list as null and an empty one as [], so `passwd.users: []` against no users is a change, §3.)
 */
export function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (isPlainObject(value)) {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== null && v !== undefined)
        .map(([k, v]) => [k, canonical(v)] as const)
        .filter(([, v]) => !(isPlainObject(v) && Object.keys(v).length === 0)),
    );
  }
  return value;
}
/** Equal as the MCO compares them; a top-level empty object also equals an absent (null) value. */
export const same = (a: unknown, b: unknown) => isDeepStrictEqual(canonical({ value: a }), canonical({ value: b }));

/** CanonicalizeKernelType: realtime and 64k-pages keep their value, anything else is default. */
export const canonicalKernelType = (t: string) => (t === "realtime" || t === "64k-pages" ? t : "default");

export type FileChange = { path: string; change: "added" | "changed" | "removed" };
export type UnitChange = { name: string; change: "added" | "changed" | "removed" };

/** The MCO's machineConfigDiff (docs/openshift.md §3). */
export type ConfigDiff = {
  osUpdate: boolean;
  revertFromOCL: boolean;
  kargs: boolean;
  extensions: boolean;
  kernelType: boolean;
  fips: boolean;
  passwd: boolean;
  files: boolean;
  units: boolean;
  /** Removed paths first, then added or changed ones. The MCO's order within each group is unspecified; here it is by path. */
  fileChanges: FileChange[];
  /** Added, then changed, then removed units (order within each group unspecified; here by name). */
  unitChanges: UnitChange[];
};

export function diffConfigs(from: RenderedConfig, to: RenderedConfig): ConfigDiff {
  const image = from.oclImage || to.oclImage;
  const osUpdate = image ? from.oclImage !== to.oclImage : from.osImageURL !== to.osImageURL;
  const oldFiles = new Map(entries(from.files).map((f) => [f.path, f]));
  const newFiles = new Map(entries(to.files).map((f) => [f.path, f]));
  const byPath = (a: FileChange, b: FileChange) => a.path.localeCompare(b.path);
  const removed = [...oldFiles.keys()]
    .filter((p) => !newFiles.has(p))
    .map((path) => ({ path, change: "removed" as const }))
    .sort(byPath);
  const addedOrChanged = [...newFiles.entries()]
    .filter(([p, f]) => !oldFiles.has(p) || !same(oldFiles.get(p), f))
    .map(([path]) => ({ path, change: oldFiles.has(path) ? ("changed" as const) : ("added" as const) }))
    .sort(byPath);
  const oldUnits = new Map(entries(from.units).map((u) => [u.name, u]));
  const newUnits = new Map(entries(to.units).map((u) => [u.name, u]));
  const byName = (a: UnitChange, b: UnitChange) => a.name.localeCompare(b.name);
  const unitsAdded = [...newUnits.keys()]
    .filter((n) => !oldUnits.has(n))
    .map((name) => ({ name, change: "added" as const }))
    .sort(byName);
  const unitsChanged = [...newUnits.entries()]
    .filter(([n, u]) => oldUnits.has(n) && !same(oldUnits.get(n), u))
    .map(([name]) => ({ name, change: "changed" as const }))
    .sort(byName);
  const unitsRemoved = [...oldUnits.keys()]
    .filter((n) => !newUnits.has(n))
    .map((name) => ({ name, change: "removed" as const }))
    .sort(byName);
  return {
    osUpdate,
    revertFromOCL: Boolean(image) && !to.oclImage,
    kargs: !same(from.kernelArguments, to.kernelArguments),
    extensions: !same(from.extensions, to.extensions),
    kernelType: canonicalKernelType(from.kernelType) !== canonicalKernelType(to.kernelType),
    fips: from.fips !== to.fips,
    passwd: !same(from.passwd, to.passwd),
    files: !same(from.files, to.files),
    units: !same(from.units, to.units),
    fileChanges: [...removed, ...addedOrChanged],
    unitChanges: [...unitsAdded, ...unitsChanged, ...unitsRemoved],
  };
}
