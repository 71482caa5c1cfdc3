import Link from "next/link";
import type { ClusterRollout } from "@/server/rollouts/contract";
import { Section } from "../ui";
import { STATE_WORDS, STATUS_WORDS } from "./words";

/** The rollouts that took this cluster in or left it out: what each wrote, and how it went here. */
export function ClusterRollouts({ rollouts }: { rollouts: ClusterRollout[] }) {
  if (!rollouts.length) return null;
  return (
    <Section title="Rollouts" description="Rollouts that included this cluster or left it out, newest first.">
      <ul className="grid gap-1 text-sm" aria-label="Rollouts of this cluster">
        {rollouts.map((r) => (
          <li key={r.id} data-testid="cluster-rollout" data-state={r.clusterState}>
            <Link href={`/rollouts/${r.number}`} className="text-accent hover:underline">
              Rollout {r.number}: {r.write}
            </Link>{" "}
            <span className="text-muted">({STATUS_WORDS[r.status] ?? r.status})</span> — here:{" "}
            <span className="font-medium">{STATE_WORDS[r.clusterState]?.label ?? r.clusterState}</span>
            {r.clusterReason ? `: ${r.clusterReason}` : ""}
          </li>
        ))}
      </ul>
    </Section>
  );
}
