import Link from "next/link";
import type { RolloutSummary } from "@/server/rollouts/contract";
import { Section, Table } from "../ui";
import { STATUS_WORDS } from "./words";

/** Every rollout, newest first, each a link to its page. */
export function RolloutList({ rollouts }: { rollouts: RolloutSummary[] }) {
  return (
    <Section title="Rollouts" description="Newest first.">
      {rollouts.length ? (
        <Table
          caption="Rollouts"
          rows={rollouts}
          rowKey={(r) => r.id}
          rowProps={(r) => ({ "data-status": r.status })}
          columns={[
            {
              head: "Rollout",
              cell: (r) => (
                <Link href={`/rollouts/${r.number}`} className="text-accent hover:underline">
                  Rollout {r.number}
                </Link>
              ),
            },
            { head: "Writes", cell: (r) => r.write },
            { head: "Status", cell: (r) => STATUS_WORDS[r.status] ?? r.status },
            { head: "Planned by", cell: (r) => r.createdBy },
            { head: "Approved by", cell: (r) => r.approvedBy ?? "—" },
            { head: "Estimate", cell: (r) => r.estimate ?? "—" },
          ]}
        />
      ) : (
        <p className="text-sm text-muted">No rollout yet. Plan one below, or from the fleet view&apos;s filters.</p>
      )}
    </Section>
  );
}
