import { effectiveCrioRuntime } from "../domain/disruption/osStreams";
import {
  builtinDefaultStream,
  clusterDefaultStream,
  effectivePoolStreams,
  isScosVersion,
  mcoInstallVersion,
} from "../domain/osImageStreams";
import type { ClusterSnapshot, OSImageStreamFacts, PoolFacts, ReadProblem, RenderedCrioFacts } from "../domain/snapshot";
import { parseOcpVersion } from "../domain/versions";
import type { ClusterObjects, RenderedConfigDigest } from "../kube/readers";
import { obj, str, type Any } from "./fields";

/**
 * OS image streams into the snapshot (docs/openshift.md §25.1): OSImageStream/cluster, each pool's
 * spec and status osImageStream, the stream each pool runs, and what the RHEL 10 runc check needs of
 * its rendered MachineConfig. Everything kept is bounded: stream names as the API bounds them (253),
 * at most 100 streams (the API's MaxItems), image references cut at 512 characters.
 */
const MAX_NAME = 253;
const MAX_STREAMS = 100;
const MAX_IMAGE = 512;

const name = (v: unknown) => {
  const s = str(v);
  return s ? s.slice(0, MAX_NAME) : null;
};

export function osImageStreamFacts(r: ClusterObjects["osImageStream"] | undefined, problems: ReadProblem[]): OSImageStreamFacts {
  // Captures and read sets made before the part existed: as a cluster that does not serve the kind.
  if (!r) return { status: "not-served" };
  if (r.status === "not-available") return { status: r.missing === "kind" ? "not-served" : "not-found" };
  if (r.status === "error") {
    problems.push({ part: "OSImageStream", kind: "error", message: r.error.message });
    return { status: "unreadable", reason: r.error.message.slice(0, 500) };
  }
  const available = (r.value.status?.availableStreams ?? [])
    .flatMap((s) => (s && name(s.name) ? [{ name: name(s.name)!, osImage: s.osImage ? s.osImage.slice(0, MAX_IMAGE) : null }] : []))
    .slice(0, MAX_STREAMS);
  return { status: "ok", specDefault: name(r.value.spec?.defaultStream), statusDefault: name(r.value.status?.defaultStream), available };
}

function renderedCrioOf(d: RenderedConfigDigest): RenderedCrioFacts {
  const base = { rendered: d.rendered.slice(0, MAX_NAME), osImageOverride: d.osImageOverride?.machineConfig ?? null };
  if (d.missing) return { ...base, defaultRuntime: null, error: `the rendered MachineConfig ${base.rendered} was not found` };
  if (d.truncated)
    return { ...base, defaultRuntime: null, error: "its CRI-O drop-ins are more or larger than Fleetskew reads (64 files of 64 KiB)" };
  const r = effectiveCrioRuntime({ files: d.crioDropIns as never });
  return "error" in r
    ? { ...base, defaultRuntime: null, error: r.error.slice(0, 500) }
    : { ...base, defaultRuntime: r.runtime ? r.runtime.slice(0, MAX_NAME) : null, error: null };
}

/** Adds each pool's streams and rendered CRI-O facts; returns the snapshot's own stream fields. */
export function withOsImageStreams(
  read: ClusterObjects,
  rawPools: Any[],
  pools: PoolFacts[],
  version: ClusterSnapshot["version"],
  problems: ReadProblem[],
): { pools: PoolFacts[]; osImageStream: OSImageStreamFacts; renderedConfigsUnread: string | null } {
  const osImageStream = osImageStreamFacts(read.osImageStream, problems);
  const specOf = new Map(
    rawPools.map((p) => {
      const spec = obj(p.spec);
      const status = obj(p.status);
      return [String(obj(p.metadata).name), { spec: name(obj(spec.osImageStream).name), status: name(obj(status.osImageStream).name) }];
    }),
  );
  const current = version?.current ?? null;
  const builtin = builtinDefaultStream(
    mcoInstallVersion(version?.history, version?.desired),
    parseOcpVersion(current),
    isScosVersion(current),
  );
  const streams = effectivePoolStreams(
    pools.map((p) => ({ name: p.name, spec: specOf.get(p.name)?.spec ?? null })),
    clusterDefaultStream(osImageStream, builtin),
  );
  const renderedRead = read.renderedConfigs ?? { status: "unknown", reason: "the rendered MachineConfigs were not read" };
  const rendered = renderedRead.status === "ok" ? new Map(renderedRead.value.map((d) => [d.pool, d])) : null;
  return {
    osImageStream,
    renderedConfigsUnread: renderedRead.status === "ok" ? null : renderedRead.reason.slice(0, 500),
    pools: pools.map((p) => {
      const d = rendered?.get(p.name);
      return {
        ...p,
        osImageStream: {
          spec: specOf.get(p.name)?.spec ?? null,
          status: specOf.get(p.name)?.status ?? null,
          effective: streams.get(p.name) ?? null,
        },
        renderedCrio: d ? renderedCrioOf(d) : null,
      };
    }),
  };
}
