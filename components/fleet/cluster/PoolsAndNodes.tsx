import type { ClusterSnapshot } from "@/server/fleet/contract";
import { Section, Table } from "../../ui";

/** MachineConfigPools, and every node with its pinned-image progress. */
export function PoolsAndNodes({ s }: { s: ClusterSnapshot }) {
  return (
    <Section title="Pools and nodes">
      <Table
        caption="MachineConfigPools"
        head={["Pool", "Machines", "Ready", "Updated", "State", "Pinned image sets"]}
        rows={s.pools.map((p) => [
          <>
            {p.name}
            {p.imageMode ? <div className="text-xs font-normal text-muted">image mode</div> : null}
          </>,
          p.machineCount,
          p.readyMachineCount,
          p.updatedMachineCount,
          <span className={p.degraded ? "text-danger" : p.paused || p.updating ? "text-warn" : "text-ok"}>
            {p.degraded ? "Degraded" : p.paused ? "Paused" : p.updating ? "Updating" : "Up to date"}
          </span>,
          p.pinnedImageSets.join(", ") || "—",
        ])}
      />
      <details className="mt-3">
        <summary className="cursor-pointer text-sm font-medium">Nodes ({s.nodes.length})</summary>
        <Table
          caption="Nodes"
          head={["Node", "Pool", "Roles", "Ready", "OS", "Pinned images"]}
          rows={s.nodes.map((n) => [
            <span className="font-mono text-xs">{n.name}</span>,
            n.pool ?? "—",
            n.roles.join(", "),
            n.ready === null ? "?" : n.ready ? "Yes" : <span className="text-danger">No</span>,
            <span className="text-xs">{n.osImage ?? "—"}</span>,
            n.pinned.length ? (
              <span className={n.pinnedDegraded ? "text-danger" : ""}>
                {n.pinned
                  .map((p) =>
                    p.lastFailedGeneration !== null && p.lastFailedGeneration >= (p.desiredGeneration ?? 0)
                      ? `${p.set}: failed`
                      : p.currentGeneration === p.desiredGeneration
                        ? `${p.set}: done`
                        : `${p.set}: pulling`,
                  )
                  .join(", ")}
                {n.pinnedDegraded && n.pinned.find((p) => p.error) ? (
                  <div className="text-xs">{n.pinned.find((p) => p.error)!.error}</div>
                ) : null}
              </span>
            ) : (
              "—"
            ),
          ])}
        />
      </details>
    </Section>
  );
}
