import { formatDate } from "@/lib/format";
import type { ReactNode } from "react";
import type { ClusterDetail } from "@/server/fleet/contract";
import { LastContact } from "../../LastContact";
import { Alert, Card } from "../../ui";
import { SkewBadge } from "../status";

/** Version, platform, skew and last contact at a glance, and why the page may show an older state. */
export function ClusterHeader({ detail: d, updated }: { detail: ClusterDetail; updated: ReactNode }) {
  const c = d.cluster;
  const s = d.snapshot;
  return (
    <Card className="p-4">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <dl className="grid grid-cols-2 gap-x-8 gap-y-2 text-sm sm:grid-cols-4">
          <div>
            <dt className="text-muted">Version</dt>
            <dd className="font-medium">{c.version ?? "—"}</dd>
          </div>
          <div>
            <dt className="text-muted">Platform</dt>
            <dd className="font-medium">
              {c.platform ?? "—"}
              {s?.topology === "SingleReplica" ? " (single node)" : ""}
            </dd>
          </div>
          <div>
            <dt className="text-muted">Boot-image skew</dt>
            <dd>
              <SkewBadge status={c.skewStatus} /> <span className="text-xs text-muted">{d.skew?.summary}</span>
            </dd>
          </div>
          <div>
            <dt className="text-muted">{c.offline ? "Captured" : "Last contact"}</dt>
            <dd>{c.offline ? c.lastSeenAt ? formatDate(c.lastSeenAt) : "—" : <LastContact cluster={c} />}</dd>
          </div>
        </dl>
        {updated}
      </div>
      {c.stale && !c.offline && (c.hubState ?? "available") === "available" ? (
        <div className="mt-3">
          <Alert tone="error">
            The newest sweep did not succeed{c.lastContactError ? `: ${c.lastContactError}` : ""}. What is shown below is the last good
            state
            {d.observedAt ? ` (changed last at ${formatDate(d.observedAt)})` : ""}.
          </Alert>
        </div>
      ) : null}
      {c.hubState === "lease-expired" || c.hubState === "removed" ? (
        <p className="mt-3 text-sm text-muted" data-testid="hub-state">
          {c.hubState === "removed"
            ? `Deleted from its ACM hub (${c.labels["fleetskew.io/hub"] ?? "hub"}): it is no longer swept; its history is kept.`
            : `Its ACM hub (${c.labels["fleetskew.io/hub"] ?? "hub"}) has not heard from it: its lease expired, so Fleetskew does not contact it until the hub does again.`}
        </p>
      ) : null}
      {c.offline ? (
        <p className="mt-3 text-sm text-muted">
          This is an offline cluster imported from object dumps; it is not swept. Import newer dumps to update it.
        </p>
      ) : null}
    </Card>
  );
}
