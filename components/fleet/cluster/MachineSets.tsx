import type { ClusterDetail } from "@/server/fleet/contract";
import { Section, Table } from "../../ui";

const PROVENANCE: Record<string, string> = {
  stream: "the image the cluster's boot image stream names",
  "image-name": "read from the image name",
  catalog: "learned from another cluster's boot image stream",
  "install-version": "assumed: the image the cluster was installed with",
  unknown: "unknown",
};

/** Each MachineSet's boot image, what release it is, how Fleetskew knows, and what the MCO does with it. */
export function MachineSets({ detail }: { detail: ClusterDetail }) {
  const s = detail.snapshot!;
  const lag = new Map(detail.lags.map((l) => [l.machineSet, l.lagMinors]));
  return (
    <Section
      title="MachineSets and their boot images"
      description="Which image new nodes of each MachineSet boot from, what release that is, how Fleetskew knows, and whether the MCO updates it."
    >
      <Table
        caption="MachineSets"
        rows={s.machineSets}
        rowKey={(m) => m.machineSet}
        columns={[
          {
            head: "MachineSet",
            cell: (m) => (
              <>
                {m.machineSet}
                {m.replicas !== null ? (
                  <div className="text-xs font-normal text-muted">
                    {m.replicas} {m.replicas === 1 ? "replica" : "replicas"}
                  </div>
                ) : null}
              </>
            ),
          },
          { head: "Boot image", cell: (m) => <span className="font-mono text-xs">{m.display}</span> },
          {
            head: "Release",
            cell: (m) => (
              <>
                {m.ocpVersion ?? "—"}
                {m.rhcosBuild ? <div className="font-mono text-xs text-muted">{m.rhcosBuild}</div> : null}
              </>
            ),
          },
          {
            head: "Lag",
            cell: (m) => {
              const minors = lag.get(m.machineSet);
              return minors !== null && minors !== undefined ? `${minors} minor` : "—";
            },
          },
          {
            head: "How known",
            cell: (m) => (
              <span className={m.provenance === "install-version" || m.provenance === "unknown" ? "text-warn" : ""}>
                {PROVENANCE[m.provenance] ?? m.provenance}
              </span>
            ),
          },
          {
            head: "MCO",
            cell: (m) => (
              <>
                <span className={m.mco.basis === "unknown" ? "text-muted" : m.mco.action === "update" ? "text-ok" : "text-warn"}>
                  {m.mco.basis === "unknown"
                    ? "Not known"
                    : m.mco.action === "update"
                      ? "Managed"
                      : m.mco.action === "error"
                        ? "Fails"
                        : m.mco.action === "exclude"
                          ? "Left out"
                          : "Skipped"}
                </span>
                <div className="text-xs text-muted">{m.mco.reason}</div>
                {m.mco.ifFails ? <div className="text-xs text-muted">If that fails: {m.mco.ifFails}</div> : null}
              </>
            ),
          },
        ]}
      />
      {detail.managedWhatIf ? (
        <p className="mt-3 text-sm">
          <strong>If managed boot images were enabled for all MachineSets:</strong> {detail.managedWhatIf.wouldUpdate.length} would be
          updated
          {detail.managedWhatIf.wouldSkip.length
            ? `, ${detail.managedWhatIf.wouldSkip.length} still skipped (${detail.managedWhatIf.wouldSkip.map((w) => `${w.machineSet}: ${w.reason}`).join("; ")})`
            : ""}
          . Skew enforcement would then be {detail.managedWhatIf.result}.
        </p>
      ) : null}
    </Section>
  );
}
