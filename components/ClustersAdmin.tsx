"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "./api";
import type { ClusterRow } from "./ClusterTable";
import { ConnectionReportView, type ConnectionReport } from "./ConnectionReportView";
import { Alert, Button, Card } from "./ui";

const STATUS_TEXT: Record<ClusterRow["lastContactStatus"], string> = {
  ok: "Reachable",
  unknown: "Not contacted yet",
  unreachable: "Unreachable",
  unauthorized: "Credentials refused",
  stale: "Stale",
};

export function ClustersAdmin({ initial }: { initial: ClusterRow[] }) {
  const queryClient = useQueryClient();
  const clusters = useQuery({
    queryKey: ["clusters"],
    queryFn: () => api<{ clusters: ClusterRow[] }>("/api/v1/clusters").then((r) => r.clusters),
    initialData: initial,
  });
  const [result, setResult] = useState<{ name: string; report: ConnectionReport } | null>(null);
  const [error, setError] = useState<string | null>(null);

  const test = useMutation({
    mutationFn: (name: string) =>
      api<{ report: ConnectionReport }>(`/api/v1/clusters/${encodeURIComponent(name)}/test`, { method: "POST" }).then((r) => ({
        name,
        report: r.report,
      })),
    onSuccess: (r) => {
      setResult(r);
      setError(null);
      void queryClient.invalidateQueries({ queryKey: ["clusters"] });
    },
    onError: (e) => setError(e.message),
  });
  const remove = useMutation({
    mutationFn: (name: string) => api(`/api/v1/clusters/${encodeURIComponent(name)}`, { method: "DELETE" }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ["clusters"] }),
    onError: (e) => setError(e.message),
  });

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
              API
            </th>
            <th scope="col" className="px-4 py-3 font-medium">
              Last contact
            </th>
            <th scope="col" className="px-4 py-3">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {clusters.data.map((c) => (
            <tr key={c.id} className="border-b border-line last:border-0" data-cluster={c.name}>
              <th scope="row" className="px-4 py-3 font-medium">
                {c.displayName}
                <div className="text-xs font-normal text-muted">
                  {c.name}
                  {Object.entries(c.labels).map(([k, v]) => (
                    <span key={k} className="ml-2 rounded bg-canvas px-1.5 py-0.5">
                      {k}={v}
                    </span>
                  ))}
                </div>
              </th>
              <td className="px-4 py-3 font-mono text-xs">{c.apiUrl}</td>
              <td className="px-4 py-3">
                {STATUS_TEXT[c.lastContactStatus]}
                {c.lastContactError ? <div className="text-xs text-danger">{c.lastContactError}</div> : null}
              </td>
              <td className="whitespace-nowrap px-4 py-3 text-right">
                <Button
                  variant="secondary"
                  disabled={test.isPending}
                  onClick={() => test.mutate(c.name)}
                  aria-label={`Test connection to ${c.name}`}
                >
                  {test.isPending && test.variables === c.name ? "Testing…" : "Test"}
                </Button>{" "}
                <Button
                  variant="danger"
                  disabled={remove.isPending}
                  aria-label={`Remove ${c.name}`}
                  onClick={() => window.confirm(`Remove ${c.displayName}? Its history stays in the audit log.`) && remove.mutate(c.name)}
                >
                  Remove
                </Button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {clusters.data.length === 0 ? <p className="p-6 text-center text-muted">No clusters are registered yet.</p> : null}
      {error ? (
        <div className="p-4">
          <Alert tone="error">{error}</Alert>
        </div>
      ) : null}
      {result ? (
        <div className="border-t border-line p-4">
          <h3 className="mb-2 font-semibold">Connection test: {result.name}</h3>
          <ConnectionReportView report={result.report} />
        </div>
      ) : null}
    </Card>
  );
}
