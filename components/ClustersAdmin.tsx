"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { clusterAdminEndpoints, type ConnectionReport, type UpdateClusterRequest } from "@/server/clusters/contract";
import type { FleetCluster } from "@/server/fleet/contract";
import { call } from "./api";
import { ConnectionReportView } from "./ConnectionReportView";
import { LastContact } from "./LastContact";
import { keys, queries } from "./queries";
import type { Seed } from "./seed";
import { useSeededQuery } from "./seededQuery";
import { Alert, Button, Card, Field, TextInput } from "./ui";

export function ClustersAdmin({ initial }: { initial: Seed<FleetCluster[]> }) {
  const queryClient = useQueryClient();
  const clusters = useSeededQuery(queries.clusters(), initial);
  const [result, setResult] = useState<{ name: string; report: ConnectionReport } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<{ name: string; displayName: string; labels: string } | null>(null);

  const save = useMutation({
    mutationFn: ({ name, ...body }: UpdateClusterRequest & { name: string }) =>
      call(clusterAdminEndpoints.change, { params: { name }, body }),
    onSuccess: () => {
      setEditing(null);
      setError(null);
      void queryClient.invalidateQueries({ queryKey: keys.clusters });
    },
    onError: (e) => setError(e.message),
  });

  function submitEdit(event: FormEvent) {
    event.preventDefault();
    if (!editing) return;
    // The server reads "key=value, key=value" and says which part is not.
    save.mutate({ name: editing.name, displayName: editing.displayName, labels: editing.labels });
  }

  const test = useMutation({
    mutationFn: (name: string) =>
      call(clusterAdminEndpoints.testRegistered, { params: { name } }).then((r) => ({ name, report: r.report })),
    onSuccess: (r) => {
      setResult(r);
      setError(null);
      void queryClient.invalidateQueries({ queryKey: keys.clusters });
    },
    onError: (e) => setError(e.message),
  });
  const remove = useMutation({
    mutationFn: (name: string) => call(clusterAdminEndpoints.remove, { params: { name } }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: keys.clusters }),
    onError: (e) => setError(e.message),
  });

  return (
    <Card className="relative overflow-x-auto">
      <table className="w-full min-w-[44rem] text-left text-sm">
        <caption className="sr-only">Registered clusters</caption>
        <thead className="whitespace-nowrap border-b border-line text-muted">
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
              <td className="px-4 py-3 font-mono text-xs">{c.apiUrl || "—"}</td>
              <td className="px-4 py-3">
                <LastContact cluster={c} />
              </td>
              <td className="whitespace-nowrap px-4 py-3 text-right">
                <Button
                  variant="secondary"
                  aria-label={`Edit ${c.name}`}
                  onClick={() =>
                    setEditing({
                      name: c.name,
                      displayName: c.displayName,
                      labels: Object.entries(c.labels)
                        .map(([k, v]) => `${k}=${v}`)
                        .join(", "),
                    })
                  }
                >
                  Edit
                </Button>{" "}
                {c.offline ? null : (
                  <>
                    <Button
                      variant="secondary"
                      disabled={test.isPending}
                      onClick={() => test.mutate(c.name)}
                      aria-label={`Test connection to ${c.name}`}
                    >
                      {test.isPending && test.variables === c.name ? "Testing…" : "Test"}
                    </Button>{" "}
                  </>
                )}
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
      {editing ? (
        <form onSubmit={submitEdit} className="flex flex-wrap items-end gap-3 border-t border-line p-4" aria-label={`Edit ${editing.name}`}>
          <Field label="Display name" htmlFor="edit-display-name">
            <TextInput
              id="edit-display-name"
              value={editing.displayName}
              maxLength={120}
              required
              onChange={(e) => setEditing({ ...editing, displayName: e.target.value })}
            />
          </Field>
          <Field label="Labels" htmlFor="edit-labels">
            <TextInput
              id="edit-labels"
              value={editing.labels}
              onChange={(e) => setEditing({ ...editing, labels: e.target.value })}
              className="min-w-72"
            />
          </Field>
          <Button type="submit" disabled={save.isPending}>
            {save.isPending ? "Saving…" : "Save"}
          </Button>
          <Button type="button" variant="secondary" onClick={() => setEditing(null)}>
            Cancel
          </Button>
        </form>
      ) : null}
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
