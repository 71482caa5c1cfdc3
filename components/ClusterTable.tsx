import { Card } from "./ui";

export type ClusterRow = {
  id: string;
  name: string;
  displayName: string;
  labels: Record<string, string>;
  platform: string | null;
  apiUrl: string;
  lastContactAt: string | null;
  lastContactStatus: "unknown" | "ok" | "unreachable" | "unauthorized" | "stale";
  lastContactError: string | null;
};

/** How a cluster's last contact reads, wherever it is shown. */
const CONTACT_STATUS: Record<ClusterRow["lastContactStatus"], { label: string; className: string }> = {
  ok: { label: "Reachable", className: "text-ok" },
  unknown: { label: "Not contacted yet", className: "text-muted" },
  unreachable: { label: "Unreachable", className: "text-danger" },
  unauthorized: { label: "Credentials refused", className: "text-danger" },
  stale: { label: "Stale", className: "text-warn" },
};

/** A cluster's last contact: status in words, when, and the error if there was one. */
export function LastContact({ cluster }: { cluster: Pick<ClusterRow, "lastContactStatus" | "lastContactAt" | "lastContactError"> }) {
  const status = CONTACT_STATUS[cluster.lastContactStatus];
  return (
    <>
      <span className={status.className}>{status.label}</span>
      {cluster.lastContactAt ? <div className="text-xs text-muted">{new Date(cluster.lastContactAt).toLocaleString()}</div> : null}
      {cluster.lastContactError ? <div className="text-xs text-danger">{cluster.lastContactError}</div> : null}
    </>
  );
}

export function ClusterTable({ clusters }: { clusters: ClusterRow[] }) {
  if (clusters.length === 0) {
    return (
      <Card className="p-8 text-center">
        <h2 className="text-lg font-semibold">No clusters registered yet</h2>
        <p className="mx-auto mt-2 max-w-xl text-muted">
          Fleetskew watches clusters through their Kubernetes API. An admin registers each cluster under{" "}
          <a className="font-medium text-accent underline" href="/admin/clusters">
            Admin → Clusters
          </a>{" "}
          with a kubeconfig, or with its API URL and a token for a service account that has the read-only role in <code>docs/rbac.md</code>.
        </p>
      </Card>
    );
  }
  return (
    <Card className="overflow-x-auto">
      <table className="w-full text-left text-sm">
        <caption className="sr-only">Registered clusters</caption>
        <thead className="border-b border-line text-muted">
          <tr>
            <th scope="col" className="px-4 py-3 font-medium">
              Cluster
            </th>
            <th scope="col" className="px-4 py-3 font-medium">
              Platform
            </th>
            <th scope="col" className="px-4 py-3 font-medium">
              API
            </th>
            <th scope="col" className="px-4 py-3 font-medium">
              Last contact
            </th>
          </tr>
        </thead>
        <tbody>
          {clusters.map((c) => (
            <tr key={c.id} className="border-b border-line last:border-0">
              <th scope="row" className="px-4 py-3 font-medium">
                {c.displayName}
                {c.displayName !== c.name ? <div className="text-xs font-normal text-muted">{c.name}</div> : null}
              </th>
              <td className="px-4 py-3">{c.platform ?? "—"}</td>
              <td className="px-4 py-3 font-mono text-xs">{c.apiUrl}</td>
              <td className="px-4 py-3">
                <LastContact cluster={c} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Card>
  );
}
