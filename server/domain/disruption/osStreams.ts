import { parse } from "smol-toml";
import { isRhel10Stream } from "../osImageStreams";
import { decodeContents, entries, type InflatedSources, type RenderedConfig } from "./machineConfig";

export { isRhel10Stream };

/*
 * OS image streams and RHEL 10 (docs/openshift.md §25.1), from MCO release-4.23 (d20efd9b9bdb):
 * pkg/osimagestream/streams.go, pkg/controller/common/helpers.go `DetectRuncInMachineConfig`,
 * pkg/controller/render/render_controller.go `validateNoRuncOnRHEL10FromOSImageStream`.
 */

const CRIO_DROP_IN_DIR = "/etc/crio/crio.conf.d/";

/**
 * `DetectRuncInMachineConfig`: the CRI-O drop-ins under /etc/crio/crio.conf.d/, in lexicographic
 * order of their paths, the last `crio.runtime.default_runtime` set wins; "runc" when that is runc.
 * Contents are decoded (gzip inflated) as DecodeIgnitionFileContents does. A drop-in that cannot be
 * read or parsed is the MCO's own error (it fails the render differently): returned as `error`.
 */
export function effectiveCrioRuntime(
  config: Pick<RenderedConfig, "files">,
  inflated?: InflatedSources,
): { runtime: string | null } | { error: string } {
  const dropIns = entries(config.files)
    .filter((f) => f.path.startsWith(CRIO_DROP_IN_DIR))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  let runtime: string | null = null;
  for (const f of dropIns) {
    const decoded = decodeContents(f, inflated);
    if (decoded.text === null) return { error: `CRI-O drop-in ${f.path} cannot be read: ${decoded.note ?? "unreadable contents"}` };
    if (decoded.text === "") continue;
    let doc: Record<string, unknown>;
    try {
      doc = parse(decoded.text) as Record<string, unknown>;
    } catch (error) {
      return { error: `failed to parse TOML from CRI-O drop-in ${f.path}: ${(error as Error).message.split("\n")[0]}` };
    }
    const set = ((doc.crio as Record<string, unknown> | undefined)?.runtime as Record<string, unknown> | undefined)?.default_runtime;
    if (typeof set === "string" && set !== "") runtime = set;
  }
  return { runtime };
}

/**
 * `validateNoRuncOnRHEL10FromOSImageStream`: the render controller's refusal, in its words, when a
 * pool on a RHEL 10 stream would run runc; null when it renders. `stream` is the pool's
 * spec.osImageStream.name (the API keeps the field only where the OSStreams gate is on).
 */
export function runcOnRhel10Refusal(
  pool: string,
  stream: string | null | undefined,
  config: RenderedConfig,
  inflated?: InflatedSources,
): string | null {
  if (!isRhel10Stream(stream)) return null;
  const r = effectiveCrioRuntime(config, inflated);
  if ("error" in r) return `failed to check runc in generated MachineConfig for pool ${pool}: ${r.error}`;
  if (r.runtime !== "runc") return null;
  return runcOnRhel10Message(pool);
}

/** The render controller's words for the refusal (render_controller.go, both `validateNoRuncOnRHEL10…` functions). */
export const runcOnRhel10Message = (pool: string) =>
  `MachineConfigPool ${pool} targets a RHEL 10 OS image where runc is not available. ` +
  "To unblock, migrate to crun by removing any ContainerRuntimeConfig that sets defaultRuntime to runc, " +
  'and removing any MachineConfig that sets default_runtime = "runc" in CRI-O configuration under /etc/crio/crio.conf.d/';
