import { createHash } from "node:crypto";
import type { ObjectSource } from "../kube/client";
import { readMachineConfigs, type ClusterObjects } from "../kube/readers";
import { keepPreviewInputs } from "../preview/storedInputs";
import { previewInputsKey } from "../store/previewInputs";

/**
 * Keeps what a config-diff preview reads of each cluster, so a preview can still answer (from the
 * last sweep, saying so) when the cluster is unreachable. MachineConfigs are large, so they are
 * read only when what decides a preview changed: a pool's rendered configuration is named after a
 * digest of its sources' contents, so any change to a source gives the pool a new name.
 */
type Obj = { metadata: { name: string }; spec?: unknown; status?: unknown };

/** The release a preview's default policies follow: the newest Completed ClusterVersion history entry. */
export function releaseOf(objects: ClusterObjects): string | null {
  if (objects.clusterVersion.status !== "ok") return null;
  return (objects.clusterVersion.value.status?.history ?? []).find((h) => h.state === "Completed" && h.version)?.version ?? null;
}

export function previewInputsKeyOf(objects: ClusterObjects): string | null {
  if (objects.pools.status !== "ok") return null;
  const spec = (o: Obj | null) => (o?.spec ?? {}) as Record<string, unknown>;
  const status = (o: Obj | null) => (o?.status ?? {}) as Record<string, unknown>;
  const mc = objects.machineConfiguration.status === "ok" ? (objects.machineConfiguration.value as Obj) : null;
  const infra = objects.infrastructure.status === "ok" ? (objects.infrastructure.value as Obj) : null;
  const decides = {
    pools: objects.pools.items
      .map((p) => ({
        name: p.metadata.name,
        selector: spec(p).machineConfigSelector ?? null,
        configuration: spec(p).configuration ?? null,
        machines: status(p).machineCount ?? null,
        // Which OS image stream the render controller judges it on (docs/openshift.md §25.1).
        stream: spec(p).osImageStream ?? null,
      }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    policy: [
      spec(mc).nodeDisruptionPolicy ?? null,
      status(mc).nodeDisruptionPolicyStatus ?? null,
      spec(mc).irreconcilableValidationOverrides ?? null,
    ],
    topology: status(infra).controlPlaneTopology ?? null,
    // Whether the MCO reads irreconcilableValidationOverrides (docs/openshift.md §25).
    featureGate: objects.featureGate.status === "ok" ? objects.featureGate.value : null,
    // Without a policy status the defaults are the cluster's release's (docs/openshift.md §21).
    release: releaseOf(objects),
    osImageStream: osImageStreamKept(objects),
    imageMode:
      objects.machineOSConfigs.status === "ok" ? objects.machineOSConfigs.items.map((m) => m.spec.machineConfigPool.name).sort() : [],
  };
  return createHash("sha256").update(JSON.stringify(decides)).digest("base64url");
}

/** A stream or default name as the API bounds it; at most as many streams as it allows. */
const MAX_STREAM_NAME = 253;
const MAX_STREAMS = 100;

/**
 * What a preview needs of OSImageStream/cluster (the default stream, the streams' names), bounded;
 * null when it was not read. The object keeps its own apiVersion: v1, or v1alpha1 on a 4.22 preview set.
 */
export function osImageStreamKept(objects: ClusterObjects): unknown {
  const r = objects.osImageStream;
  if (!r || r.status !== "ok") return null;
  const name = (v: unknown) => (typeof v === "string" && v !== "" ? v.slice(0, MAX_STREAM_NAME) : undefined);
  const o = r.value as {
    apiVersion?: string;
    spec?: { defaultStream?: unknown } | null;
    status?: { defaultStream?: unknown; availableStreams?: { name?: unknown }[] } | null;
  };
  return {
    apiVersion: o.apiVersion ?? "machineconfiguration.openshift.io/v1",
    kind: "OSImageStream",
    metadata: { name: "cluster" },
    spec: { defaultStream: name(o.spec?.defaultStream) },
    status: {
      defaultStream: name(o.status?.defaultStream),
      availableStreams: (o.status?.availableStreams ?? [])
        .flatMap((s) => (name(s?.name) ? [{ name: name(s.name)! }] : []))
        .slice(0, MAX_STREAMS),
    },
  };
}

/** The objects to keep: pools, their source MachineConfigs whole, rendered ones only for their OS image, and the policy. */
export function previewInputsOf(objects: ClusterObjects, machineConfigs: Obj[]): unknown[] {
  if (objects.pools.status !== "ok") return [];
  const sources = new Set<string>();
  const rendered = new Set<string>();
  for (const p of objects.pools.items) {
    const configuration = (p.spec as { configuration?: { name?: string; source?: { name: string }[] } } | undefined)?.configuration;
    if (configuration?.name) rendered.add(configuration.name);
    for (const s of configuration?.source ?? []) sources.add(s.name);
  }
  const configs = machineConfigs.flatMap((m) => {
    if (sources.has(m.metadata.name)) return [m];
    if (!rendered.has(m.metadata.name)) return [];
    const { apiVersion, kind } = m as { apiVersion?: string; kind?: string };
    return [
      {
        apiVersion,
        kind,
        metadata: { name: m.metadata.name },
        spec: { osImageURL: (m.spec as { osImageURL?: string } | undefined)?.osImageURL ?? "" },
      },
    ];
  });
  const one = (r: { status: string; value?: unknown }) => (r.status === "ok" ? [r.value] : []);
  const release = releaseOf(objects);
  return [
    ...objects.pools.items,
    ...configs,
    ...one(objects.machineConfiguration as { status: string; value?: unknown }),
    ...one(objects.infrastructure as { status: string; value?: unknown }),
    ...one(objects.featureGate as { status: string; value?: unknown }),
    // Only what says the release: the newest history entry.
    ...(release
      ? [
          {
            apiVersion: "config.openshift.io/v1",
            kind: "ClusterVersion",
            metadata: { name: "version" },
            status: { history: [{ state: "Completed", version: release }] },
          },
        ]
      : []),
    ...(objects.machineOSConfigs.status === "ok" ? objects.machineOSConfigs.items : []),
    ...[osImageStreamKept(objects)].filter((o) => o !== null),
  ];
}

export class PreviewInputsKeeper {
  /** The key stored for each cluster, as far as this process knows. */
  private readonly known = new Map<string, string>();

  /** Stores a cluster's preview inputs when they changed since the last time; failures only mean the copy stays older. */
  async keep(clusterId: string, source: ObjectSource, objects: ClusterObjects, at: Date): Promise<"stored" | "unchanged" | "skipped"> {
    const key = previewInputsKeyOf(objects);
    if (!key) return "skipped";
    if (this.known.get(clusterId) === key) return "unchanged";
    if ((await previewInputsKey(clusterId)) === key) {
      this.known.set(clusterId, key);
      return "unchanged";
    }
    const configs = await readMachineConfigs(source);
    if (configs.status !== "ok") return "skipped";
    // Sealed at rest: a pool's MachineConfigs hold the pull secret and whatever admins put in files.
    await keepPreviewInputs(clusterId, { key, objects: previewInputsOf(objects, configs.items as Obj[]), observedAt: at });
    this.known.set(clusterId, key);
    return "stored";
  }

  /** Forgets a cluster another collector now sweeps: its next sweep here asks the database again. */
  forget(clusterId: string): void {
    this.known.delete(clusterId);
  }
}
