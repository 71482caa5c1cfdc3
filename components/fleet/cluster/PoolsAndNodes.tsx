import type { ClusterSnapshot } from "@/server/domain/snapshot";
import { Section, Table } from "../../ui";

type Node = ClusterSnapshot["nodes"][number];

/** A node's pinned image sets in a word each: done, pulling or failed. */
/**
 * The MCO's own words when a prefetch outlives its timeout (`errRequeueAfterTimeout`, docs/openshift.md
 * §21.5): it carries on in the next attempt, so this is pulling, not a failure.
 */
const isRequeue = (error: string | null) => !!error && error.trim().startsWith("requeue: prefetching images incomplete after timeout");
const failed = (p: Node["pinned"][number]) =>
  p.lastFailedGeneration !== null && p.lastFailedGeneration >= (p.desiredGeneration ?? 0) && !isRequeue(p.error);

const pinnedWords = (n: Node) =>
  n.pinned
    .map((p) =>
      failed(p)
        ? `${p.set}: failed`
        : p.currentGeneration === p.desiredGeneration
          ? `${p.set}: done`
          : n.pinnedDegraded && n.pinnedProgressing
            ? `${p.set}: pulling (the MCO retries after its prefetch timeout or an error)`
            : `${p.set}: pulling`,
    )
    .join(", ");

type Pool = ClusterSnapshot["pools"][number];

const STREAM_SOURCE: Record<NonNullable<NonNullable<Pool["osImageStream"]>["effective"]>["source"], string> = {
  pool: "set on the pool",
  worker: "from the worker pool",
  "cluster-default": "cluster default",
  builtin: "MCO built-in default",
};

/** The OS image stream the pool runs, and what decided it (docs/openshift.md §25.1). */
function streamCell(p: Pool) {
  const o = p.osImageStream;
  if (!o) return "—";
  if (!o.effective) return <span className="text-muted">not known</span>;
  return (
    <>
      {o.effective.name}
      <div className="text-xs font-normal text-muted">
        {STREAM_SOURCE[o.effective.source]}
        {o.status && o.status !== o.effective.name ? `; last updated to ${o.status}` : ""}
      </div>
    </>
  );
}

/** MachineConfigPools, and every node with its pinned-image progress. */
export function PoolsAndNodes({ s }: { s: ClusterSnapshot }) {
  // Every machine of a pool is a Node: when the two counts differ (Nodes not yet joined, or not
  // readable), the list below is not the whole cluster, and the page says so rather than let it pass.
  // A node is a machine of exactly one pool (a custom pool takes its nodes out of worker), so the sum is the cluster's machines.
  const machines = s.pools.reduce((n, p) => n + p.machineCount, 0);
  return (
    <Section title="Pools and nodes">
      <Table
        caption="MachineConfigPools"
        rows={s.pools}
        rowKey={(p) => p.name}
        columns={[
          {
            head: "Pool",
            cell: (p) => (
              <>
                {p.name}
                {p.imageMode ? <div className="text-xs font-normal text-muted">image mode</div> : null}
              </>
            ),
          },
          { head: "Machines", cell: (p) => p.machineCount },
          { head: "Ready", cell: (p) => p.readyMachineCount },
          { head: "Updated", cell: (p) => p.updatedMachineCount },
          {
            head: "State",
            cell: (p) => (
              <span className={p.degraded ? "text-danger" : p.paused || p.updating ? "text-warn" : "text-ok"}>
                {p.degraded ? "Degraded" : p.paused ? "Paused" : p.updating ? "Updating" : "Up to date"}
              </span>
            ),
          },
          { head: "OS stream", cell: streamCell },
          { head: "Pinned image sets", cell: (p) => p.pinnedImageSets.join(", ") || "—" },
        ]}
      />
      <details className="mt-3">
        <summary className="cursor-pointer text-sm font-medium">
          Nodes ({s.nodes.length})
          {machines !== s.nodes.length ? (
            <span className="ml-2 font-normal text-warn">
              the pools count {machines} {machines === 1 ? "machine" : "machines"}; {s.nodes.length} Node{" "}
              {s.nodes.length === 1 ? "object was" : "objects were"} read
            </span>
          ) : null}
        </summary>
        <Table
          caption="Nodes"
          rows={s.nodes}
          rowKey={(n) => n.name}
          columns={[
            { head: "Node", cell: (n) => <span className="font-mono text-xs">{n.name}</span> },
            { head: "Pool", cell: (n) => n.pool ?? "—" },
            { head: "Roles", cell: (n) => n.roles.join(", ") },
            { head: "Ready", cell: (n) => (n.ready === null ? "?" : n.ready ? "Yes" : <span className="text-danger">No</span>) },
            { head: "OS", cell: (n) => <span className="text-xs">{n.osImage ?? "—"}</span> },
            {
              head: "Pinned images",
              cell: (n) => {
                if (!n.pinned.length) return "—";
                const error = n.pinnedDegraded ? n.pinned.find((p) => p.error)?.error : null;
                return (
                  <span className={n.pinned.some(failed) ? "text-danger" : ""}>
                    {pinnedWords(n)}
                    {error ? <div className="text-xs">{error}</div> : null}
                  </span>
                );
              },
            },
          ]}
        />
      </details>
    </Section>
  );
}
