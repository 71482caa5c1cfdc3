import { formatDate } from "@/lib/format";
import type { FleetCluster } from "@/server/fleet/contract";

/** How a cluster's last contact reads, wherever it is shown. */
const CONTACT_STATUS: Record<FleetCluster["lastContactStatus"], { label: string; className: string }> = {
  ok: { label: "Reachable", className: "text-ok" },
  unknown: { label: "Not contacted yet", className: "text-muted" },
  unreachable: { label: "Unreachable", className: "text-danger" },
  unauthorized: { label: "Credentials refused", className: "text-danger" },
  stale: { label: "Stale", className: "text-warn" },
};

/**
 * A cluster's last contact: status in words, when, and the error if there was one. An offline
 * import is never contacted, so it shows when it was captured instead.
 */
export function LastContact({
  cluster,
}: {
  cluster: Pick<FleetCluster, "lastContactStatus" | "lastContactAt" | "lastContactError" | "offline" | "lastSeenAt">;
}) {
  if (cluster.offline)
    return (
      <>
        <span className="text-muted">Offline import</span>
        <div className="text-xs text-muted">captured {cluster.lastSeenAt ? formatDate(cluster.lastSeenAt) : "at an unknown time"}</div>
      </>
    );
  const status = CONTACT_STATUS[cluster.lastContactStatus];
  return (
    <>
      <span className={status.className}>{status.label}</span>
      {cluster.lastContactAt ? <div className="text-xs text-muted">{formatDate(cluster.lastContactAt)}</div> : null}
      {cluster.lastContactError ? <div className="text-xs text-danger">{cluster.lastContactError}</div> : null}
    </>
  );
}
