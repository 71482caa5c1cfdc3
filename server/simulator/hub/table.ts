import type http from "node:http";
import type { KindInfo } from "../kinds";
import type { KubeObject } from "../objectStore";
import { HUB_KINDS } from "./kinds";

/**
 * Server-side printing, so that `kubectl get` shows the columns the CRDs declare
 * (additionalPrinterColumns in API `cluster/v1/0000_00_clusters.open-cluster-management.io_managedclusters.crd.yaml`
 * and `addon/v1alpha1/0000_01_addon.open-cluster-management.io_managedclusteraddons.crd.yaml`);
 * other kinds get Name and Age, as a CRD without columns does.
 */
type Column = { name: string; type: string; value: (o: KubeObject) => unknown };

const condition = (type: string) => (o: KubeObject) =>
  ((o.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).find((c) => c.type === type)?.status ??
  "";

const COLUMNS = new Map<KindInfo, Column[]>([
  [
    HUB_KINDS.managedCluster,
    [
      { name: "Hub Accepted", type: "boolean", value: (o) => (o.spec as { hubAcceptsClient?: boolean })?.hubAcceptsClient ?? false },
      {
        name: "Managed Cluster URLs",
        type: "string",
        value: (o) =>
          ((o.spec as { managedClusterClientConfigs?: { url: string }[] })?.managedClusterClientConfigs ?? []).map((c) => c.url).join(" "),
      },
      { name: "Joined", type: "string", value: condition("ManagedClusterJoined") },
      { name: "Available", type: "string", value: condition("ManagedClusterConditionAvailable") },
    ],
  ],
  [
    HUB_KINDS.managedClusterAddOn,
    [
      { name: "Available", type: "string", value: condition("Available") },
      { name: "Degraded", type: "string", value: condition("Degraded") },
      { name: "Progressing", type: "string", value: condition("Progressing") },
    ],
  ],
]);

/** Whether the client asked for a Table (kubectl's `Accept: application/json;as=Table;v=v1;g=meta.k8s.io,…`). */
export const wantsTable = (req: http.IncomingMessage) => /;\s*as=Table/.test(req.headers.accept ?? "");

function age(o: KubeObject, now: number): string {
  const at = Date.parse(o.metadata.creationTimestamp ?? "");
  if (!Number.isFinite(at)) return "<unknown>";
  const s = Math.max(0, Math.floor((now - at) / 1000));
  return s < 120 ? `${s}s` : s < 7200 ? `${Math.floor(s / 60)}m` : s < 172_800 ? `${Math.floor(s / 3600)}h` : `${Math.floor(s / 86_400)}d`;
}

/** A meta.k8s.io/v1 Table of `items`, each row carrying the object's metadata as kubectl expects. */
export function tableOf(info: KindInfo, items: KubeObject[], listMeta: Record<string, unknown> = {}) {
  const columns = COLUMNS.get(info) ?? [];
  const now = Date.now();
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata: listMeta,
    columnDefinitions: [
      { name: "Name", type: "string", format: "name", description: "Name of the object", priority: 0 },
      ...columns.map((c) => ({ name: c.name, type: c.type, format: "", description: c.name, priority: 0 })),
      { name: "Age", type: "date", format: "", description: "Time since creation", priority: 0 },
    ],
    rows: items.map((o) => ({
      cells: [o.metadata.name, ...columns.map((c) => c.value(o)), age(o, now)],
      object: { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: o.metadata },
    })),
  };
}
