import path from "node:path";
import type { ClusterSpec } from "./cluster";
import { importDumps } from "./importDumps";
import { tokenFor } from "./scenarios/generate";

/** A cluster served from a directory of object dumps; its version comes from its ClusterVersion. */
export async function clusterFromDumps(
  dir: string,
  name: string | undefined,
  seed: number,
): Promise<{ spec: ClusterSpec; warnings: string[] }> {
  const { objects, warnings } = await importDumps(dir);
  const clusterName =
    name ??
    path
      .basename(path.resolve(dir))
      .toLowerCase()
      .replace(/[^a-z0-9-]/g, "-");
  const cv = objects.find((o) => o.kind === "ClusterVersion") as
    { status?: { history?: { version?: string }[]; desired?: { version?: string } } } | undefined;
  const version = cv?.status?.history?.[0]?.version ?? cv?.status?.desired?.version;
  if (!version) warnings.push(`${dir}: no ClusterVersion with a version; serving it as 4.19.0`);
  return {
    spec: {
      name: clusterName,
      ocpVersion: version ?? "4.19.0",
      token: tokenFor(clusterName, seed),
      readOnlyToken: tokenFor(`${clusterName}-reader`, seed),
      objects: () => objects,
    },
    warnings,
  };
}
