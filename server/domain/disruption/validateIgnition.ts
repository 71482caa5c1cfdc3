import path from "node:path";
import { entries, type RenderedConfig } from "./machineConfig";
import { SYSTEMD_UNIT_SUFFIXES } from "./systemdUnits";

/**
 * `ValidateIgnition` (MCO pkg/controller/common/helpers.go), which `isReconcilable`
 * (reconcile.go) runs on the new config before anything else: Ignition's own validation
 * (coreos/ignition v2 config/v3_5/types, as vendored by the MCO at release-4.22), whose fatal
 * entries refuse the config, then `validateIgn3FileModes`. Fleetskew checks the fatal entries a
 * MachineConfig commonly trips over, in the order Ignition walks the config (storage directories,
 * files, links, then systemd units; within an entry its fields in struct order); it does not
 * repeat every rule (partitions, filesystems, LUKS, HTTP headers).
 */

/** coreos/ignition config/shared/errors. */
const ERR = {
  noPath: "path not specified",
  pathRelative: "path not absolute",
  dirtyPath: "path is not fully simplified",
  compression: "invalid compression method",
  scheme: "invalid url scheme",
  systemdExt: "invalid systemd unit extension",
};
/** validateURL: the schemes Ignition fetches from. */
const SCHEMES = new Set(["http", "https", "tftp", "gs", "s3", "arn", "data"]);
/** os.ModePerm. */
const MODE_PERM = 0o777;

/** types/path.go validatePath. */
function pathError(p: unknown): string | null {
  if (typeof p !== "string" || p === "") return ERR.noPath;
  if (!p.startsWith("/")) return ERR.pathRelative;
  const clean = path.posix.normalize(p);
  return (clean.length > 1 && clean.endsWith("/") ? clean.slice(0, -1) : clean) === p ? null : ERR.dirtyPath;
}

/** url.Parse's scheme, then validateURL's switch; no source (nil) is fine. */
function sourceError(source: unknown): string | null {
  if (source === null || source === undefined) return null;
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(String(source));
  return m && SCHEMES.has(m[1]!.toLowerCase()) ? null : ERR.scheme;
}

/** Resource.Validate: compression is "", gzip or unset; the source's scheme. */
function resourceErrors(at: string, resource: Record<string, unknown> | null | undefined, out: string[]) {
  if (!resource) return;
  const compression = resource.compression;
  if (compression !== null && compression !== undefined && compression !== "" && compression !== "gzip")
    out.push(`${at}.compression: ${ERR.compression}`);
  const source = sourceError(resource.source);
  if (source) out.push(`${at}.source: ${source}`);
}

/** Go's %#o: octal with a leading 0. */
const goOctal = (n: number) => `0${n.toString(8)}`;

/**
 * The error `isReconcilable` returns for a new config Ignition's validation refuses, worded as the MCO
 * words it; null when it passes. A spec-3 config is validated by Ignition's own parser inside
 * `ParseAndConvertConfig`, so its fatal entries come out as a parse failure ("parsing new Ignition
 * config from machineconfig … failed: … config is not valid\nReport: error at …"); a config converted
 * from spec 2 reaches `ValidateIgnition` ("validating new Ignition config from machineconfig … failed:
 * invalid ignition V3 config found: …"). Both list the fatal entries ("error at $.path: message"), one
 * per line, as vcontext prints them, without the line and column the MCO adds nor Ignition's warnings.
 * The file-mode rule is `ValidateIgnition`'s own, so it keeps that wording.
 */
export function ignitionValidationError(config: RenderedConfig): string | null {
  const fatal: string[] = [];
  const node = (list: string, items: Record<string, unknown>[] | null) =>
    entries(items).forEach((item, i) => {
      const at = `$.storage.${list}.${i}`;
      const p = pathError(item.path);
      if (p) fatal.push(`${at}.path: ${p}`);
      if (list === "files") {
        entries(item.append as Record<string, unknown>[] | null | undefined).forEach((a, j) =>
          resourceErrors(`${at}.append.${j}`, a, fatal),
        );
        resourceErrors(`${at}.contents`, item.contents as Record<string, unknown> | undefined, fatal);
      }
    });
  node("directories", config.storage.directories);
  node("files", config.files as Record<string, unknown>[] | null);
  node("links", config.storage.links);
  entries(config.units).forEach((u, i) => {
    if (!SYSTEMD_UNIT_SUFFIXES.includes(path.posix.extname(String(u.name ?? ""))))
      fatal.push(`$.systemd.units.${i}.name: ${ERR.systemdExt}`);
  });
  const prefix = `validating new Ignition config from machineconfig "${config.name}" failed: `;
  const report = fatal.map((f) => `error at ${f}`).join("\n");
  if (fatal.length && config.ignitionSpec?.startsWith("2.")) return `${prefix}invalid ignition V3 config found: ${report}`;
  if (fatal.length)
    return (
      `parsing new Ignition config from machineconfig "${config.name}" failed: failed to parse Ignition config: ` +
      `parsing Ignition config spec v3 failed with error: config is not valid\nReport: ${report}`
    );
  // validateIgn3FileModes: no setuid, setgid or sticky bit.
  for (const f of entries(config.files))
    if (typeof f.mode === "number" && f.mode > MODE_PERM)
      return `${prefix}invalid mode ${goOctal(f.mode)} for ${f.path}, cannot exceed ${goOctal(MODE_PERM)}`;
  return null;
}
