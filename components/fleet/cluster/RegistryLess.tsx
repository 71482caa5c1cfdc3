import type { ClusterSnapshot } from "@/server/domain/snapshot";
import type { RegistryLessState } from "@/server/fleet/contract";
import { Section, Table } from "../../ui";
import { Conditions } from "./Conditions";

type Release = RegistryLessState["releases"][number];
type Node = RegistryLessState["nodes"][number];

const STATE: Record<Release["state"], { label: string; className: string }> = {
  available: { label: "Available", className: "text-ok" },
  degraded: { label: "Available, degraded", className: "text-warn" },
  unavailable: { label: "Not available", className: "text-danger" },
};
const NODE_STATE: Record<Node["state"], { label: string; className: string }> = {
  available: { label: "Registry available", className: "text-ok" },
  degraded: { label: "Registry degraded", className: "text-danger" },
  unknown: { label: "Not reported", className: "text-muted" },
};

const why = (r: { reason: string | null; message: string | null }) => [r.reason, r.message].filter(Boolean).join(": ");

/**
 * A cluster installed without a registry: the releases its InternalReleaseImage serves, its
 * conditions, and each control-plane node's own registry (MachineConfigNode status). Read-only:
 * OpenShift adds no release bundle to a running cluster today.
 */
export function RegistryLess({ state, s }: { state: RegistryLessState | null; s: ClusterSnapshot }) {
  if (!state) return null;
  const iri = s.internalReleaseImage;
  return (
    <Section
      title="Registry-less releases"
      description="This cluster was installed without a registry: its nodes pull releases only from the InternalReleaseImage, served on port 22625 of each control-plane node. It can update only to a release listed here as available."
    >
      <div aria-label="Registry-less releases" role="region" className="flex flex-col gap-3">
        {state.problems.length ? (
          <ul className="list-disc pl-5 text-sm text-danger" aria-label="Registry problems">
            {state.problems.map((p, i) => (
              <li key={i}>
                <strong>{p.source}</strong>: {why(p) || "no reason given"}
              </li>
            ))}
          </ul>
        ) : null}
        <Table
          caption="Releases the cluster serves"
          rows={state.releases}
          rowKey={(r) => r.name}
          rowProps={(r) => ({ "data-release": r.name, "data-state": r.state })}
          columns={[
            { head: "Bundle", cell: (r) => <span className="font-mono text-xs">{r.name}</span> },
            { head: "Release", cell: (r) => r.version ?? "—" },
            {
              head: "State",
              cell: (r) => <span className={STATE[r.state].className}>{STATE[r.state].label}</span>,
            },
            { head: "Reason", cell: (r) => <span className="text-xs">{why(r)}</span> },
            { head: "Image", cell: (r) => <span className="break-all font-mono text-xs">{r.image ?? "—"}</span> },
          ]}
        />
        <Conditions title="InternalReleaseImage cluster" conditions={iri?.conditions} />
        <div>
          <h3 className="mt-2 text-sm font-semibold">Control-plane nodes</h3>
          {state.nodes.length ? (
            <Table
              caption="Registry on each node"
              rows={state.nodes}
              rowKey={(n) => n.node}
              rowProps={(n) => ({ "data-node": n.node, "data-state": n.state })}
              columns={[
                { head: "Node", cell: (n) => <span className="font-mono text-xs">{n.node}</span> },
                {
                  head: "Registry",
                  cell: (n) => <span className={NODE_STATE[n.state].className}>{NODE_STATE[n.state].label}</span>,
                },
                { head: "Reason", cell: (n) => <span className="text-xs">{why(n)}</span> },
                {
                  head: "Releases on the node",
                  cell: (n) =>
                    n.releases.length
                      ? n.releases.map((r) => (
                          <div key={r.name} className="text-xs">
                            {r.name}: <span className={STATE[r.state].className}>{STATE[r.state].label}</span>
                          </div>
                        ))
                      : "—",
                },
              ]}
            />
          ) : (
            <p className="text-sm text-muted">No MachineConfigNode reports its registry yet.</p>
          )}
        </div>
      </div>
    </Section>
  );
}
