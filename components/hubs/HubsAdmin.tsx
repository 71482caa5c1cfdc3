"use client";

import { formatDate } from "@/lib/format";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { hubEndpoints, type HubMemberRecord, type HubSummary } from "@/server/hubs/contract";
import { call } from "../api";
import { Alert, Button, Card, Select, Table } from "../ui";
import { ELIGIBILITY, STATE } from "./eligibility";
import { HubRegistration } from "./HubRegistration";

const REFRESH_MS = 3_000;

function Counts({ hub }: { hub: HubSummary }) {
  const c = hub.counts;
  return (
    <span data-testid={`hub-counts-${hub.name}`}>
      {c.total} managed · {c.eligible} followed · {c.ineligible} not followed · {c.offline} offline · {c.removed} removed
    </span>
  );
}

function SyncStatus({ hub }: { hub: HubSummary }) {
  if (hub.lastSyncStatus === "pending") return <span className="text-muted">first sync under way…</span>;
  const at = hub.lastSyncAt ? formatDate(hub.lastSyncAt, { seconds: true }) : "";
  return hub.lastSyncStatus === "ok" ? (
    <span className="text-ok">in step ({at})</span>
  ) : (
    <span className="text-danger">
      sync failed at {at}: {hub.lastSyncError}
    </span>
  );
}

const ACCESS: Record<HubSummary["access"], string> = {
  impersonation: "clusters reached by impersonating the proxy service account",
  "managed-service-account": "clusters reached with a ManagedServiceAccount each",
};

/** What the hub's ManagedClusterInfo says (refreshed by the hub's agent every 5 minutes). */
function HubReport({ member: m }: { member: HubMemberRecord }) {
  if (!m.version && m.nodes === null) return <span className="text-muted">—</span>;
  return (
    <div className="flex flex-col items-start gap-0.5 text-xs">
      {m.version ? (
        <span>
          {m.version}
          {m.desiredVersion && m.desiredVersion !== m.version ? ` → ${m.desiredVersion}` : ""}
        </span>
      ) : null}
      {m.upgradeFailed ? <span className="rounded bg-danger/10 px-1.5 py-0.5 font-medium text-danger">upgrade failed</span> : null}
      {m.nodes ? (
        <span className="text-muted">
          {m.readyNodes ?? 0}/{m.nodes} nodes ready
        </span>
      ) : m.nodes === 0 ? (
        <span className="text-muted">no nodes reported</span>
      ) : null}
    </div>
  );
}

function EligibilityBadge({ member }: { member: HubMemberRecord }) {
  const e = ELIGIBILITY[member.eligibility] ?? { label: member.eligibility, className: "bg-muted/10 text-muted" };
  return <span className={`inline-flex items-center rounded px-2 py-0.5 text-xs font-medium ${e.className}`}>{e.label}</span>;
}

/** One hub's managed clusters: each one followed, or the first reason it is not. */
function HubMembers({ name }: { name: string }) {
  const [filter, setFilter] = useState("all");
  const detail = useQuery({
    queryKey: ["hubs", name],
    queryFn: () => call(hubEndpoints.detail, { params: { name } }),
    refetchInterval: REFRESH_MS,
  });
  if (detail.error) return <Alert tone="error">{detail.error.message}</Alert>;
  if (!detail.data) return <p className="text-sm text-muted">Reading the hub…</p>;
  const members = detail.data.clusters.filter((m) => filter === "all" || m.eligibility === filter);
  const present = [...new Set(detail.data.clusters.map((m) => m.eligibility))];
  return (
    <div className="flex flex-col gap-3" role="region" aria-label={`Managed clusters of ${name}`}>
      <div className="flex flex-wrap items-center gap-3 text-sm">
        <label htmlFor="hub-filter">Show</label>
        <Select id="hub-filter" value={filter} onChange={(e) => setFilter(e.target.value)} aria-label="Eligibility">
          <option value="all">every cluster ({detail.data.clusters.length})</option>
          {present.map((e) => (
            <option key={e} value={e}>
              {ELIGIBILITY[e]?.label ?? e} ({detail.data.clusters.filter((m) => m.eligibility === e).length})
            </option>
          ))}
        </Select>
        <Link className="text-accent underline" href={`/fleet?hub=${encodeURIComponent(name)}`}>
          Show in fleet view
        </Link>
      </div>
      <Table
        caption={`Managed clusters of ${name}`}
        rows={members}
        rowKey={(m) => m.name}
        rowProps={(m) => ({ "data-member": m.name })}
        columns={[
          { head: "Cluster", cell: (m) => m.name },
          { head: "Cluster set", cell: (m) => m.clusterSet ?? "—" },
          { head: "State", cell: (m) => STATE[m.state] ?? m.state },
          { head: "Hub reports", cell: (m) => <HubReport member={m} /> },
          {
            head: "Followed",
            cell: (m) => (
              <div className="flex flex-col items-start gap-1">
                <EligibilityBadge member={m} />
                {m.reason ? <span className="text-xs text-muted">{m.reason}</span> : null}
              </div>
            ),
          },
          {
            head: "In Fleetskew",
            cell: (m) =>
              m.registeredAs ? (
                <Link className="text-accent underline" href={`/clusters/${encodeURIComponent(m.registeredAs)}`}>
                  {m.registeredAs}
                </Link>
              ) : (
                "—"
              ),
          },
        ]}
      />
    </div>
  );
}

export function HubsAdmin({ initialSelected }: { initialSelected: string | null }) {
  const queryClient = useQueryClient();
  const [selected, setSelected] = useState<string | null>(initialSelected);
  const [message, setMessage] = useState<string | null>(null);
  const hubs = useQuery({ queryKey: ["hubs"], queryFn: () => call(hubEndpoints.list), refetchInterval: REFRESH_MS });
  const resync = useMutation({
    mutationFn: (name: string) => call(hubEndpoints.resync, { params: { name } }),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ["hubs"] }),
  });
  const remove = useMutation({
    mutationFn: (name: string) => call(hubEndpoints.remove, { params: { name } }),
    onSuccess: (r, name) => {
      setMessage(
        `${name} forgotten: its ${r.clusters} clusters stay in the fleet as removed, with their history.${r.permissionsLeft ? ` ${r.permissionsLeft}` : ""}`,
      );
      if (selected === name) setSelected(null);
      void queryClient.invalidateQueries({ queryKey: ["hubs"] });
    },
  });
  const error = hubs.error ?? resync.error ?? remove.error;
  return (
    <div className="flex flex-col gap-6">
      <Card className="p-4">
        <h2 className="font-semibold">Hubs</h2>
        {error ? <Alert tone="error">{error.message}</Alert> : null}
        {message ? <Alert tone="ok">{message}</Alert> : null}
        {hubs.data && hubs.data.hubs.length === 0 ? <p className="mt-2 text-sm text-muted">No hub is registered.</p> : null}
        <ul className="mt-2 flex flex-col divide-y divide-line" aria-label="Registered hubs">
          {hubs.data?.hubs.map((h) => (
            <li key={h.name} data-hub={h.name} className="flex flex-wrap items-center justify-between gap-3 py-3 text-sm">
              <div className="flex flex-col gap-1">
                <span className="font-medium">{h.name}</span>
                <span className="text-xs text-muted">
                  {h.apiUrl} · {ACCESS[h.access] ?? h.access}
                </span>
                <Counts hub={h} />
                <SyncStatus hub={h} />
              </div>
              <div className="flex gap-2">
                <Button variant="secondary" onClick={() => setSelected(h.name)} aria-label={`Show the clusters of ${h.name}`}>
                  Clusters
                </Button>
                <Button
                  variant="secondary"
                  onClick={() => resync.mutate(h.name)}
                  disabled={resync.isPending}
                  aria-label={`Resync ${h.name}`}
                >
                  Resync
                </Button>
                <Button
                  variant="danger"
                  aria-label={`Forget ${h.name}`}
                  onClick={() => {
                    if (window.confirm(`Forget ${h.name}? Its clusters stay as removed, with their history.`)) remove.mutate(h.name);
                  }}
                >
                  Forget
                </Button>
              </div>
            </li>
          ))}
        </ul>
      </Card>
      {selected ? (
        <Card className="p-4">
          <h2 className="mb-3 font-semibold">Clusters of {selected}</h2>
          <HubMembers name={selected} />
        </Card>
      ) : null}
      <div className="max-w-4xl">
        <HubRegistration onRegistered={setSelected} />
      </div>
    </div>
  );
}
