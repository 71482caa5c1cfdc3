"use client";

import { api } from "./api";
import type { Seed } from "./seed";
import { useSeededQuery } from "./seededQuery";
import { Card } from "./ui";

export type AuditEventRow = {
  id: string;
  at: string;
  actor: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  outcome: string;
  details: unknown;
  ip: string | null;
};

/** Details as "key: value" pairs; nested values stay JSON. */
function describeDetails(details: unknown): string {
  if (!details || typeof details !== "object") return details ? String(details) : "";
  return Object.entries(details as Record<string, unknown>)
    .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(" · ");
}

const OUTCOME_STYLE: Record<string, string> = { success: "text-ok", failure: "text-danger", denied: "text-warn" };

export function AuditLog({ initial }: { initial: Seed<AuditEventRow[]> }) {
  const { data, isFetching } = useSeededQuery(
    {
      queryKey: ["audit"],
      queryFn: () => api<{ events: AuditEventRow[] }>("/api/v1/audit?limit=100").then((r) => r.events),
      refetchInterval: 30_000,
    },
    initial,
  );
  return (
    <Card className="overflow-x-auto">
      <table className="w-full text-left text-sm">
        <caption className="sr-only">Audit events{isFetching ? " (refreshing)" : ""}</caption>
        <thead className="border-b border-line text-muted">
          <tr>
            <th scope="col" className="px-4 py-3 font-medium">
              When
            </th>
            <th scope="col" className="px-4 py-3 font-medium">
              Who
            </th>
            <th scope="col" className="px-4 py-3 font-medium">
              What
            </th>
            <th scope="col" className="px-4 py-3 font-medium">
              Target
            </th>
            <th scope="col" className="px-4 py-3 font-medium">
              Outcome
            </th>
            <th scope="col" className="px-4 py-3 font-medium">
              Details
            </th>
          </tr>
        </thead>
        <tbody>
          {data.map((e) => (
            <tr key={e.id} className="border-b border-line align-top last:border-0">
              <td className="whitespace-nowrap px-4 py-2">
                <time dateTime={e.at}>{new Date(e.at).toLocaleString()}</time>
              </td>
              <td className="px-4 py-2">{e.actor ?? <span className="text-muted">system</span>}</td>
              <td className="px-4 py-2 font-mono text-xs">{e.action}</td>
              <td className="px-4 py-2">{e.targetId ? `${e.targetType ?? ""} ${e.targetId}` : "—"}</td>
              <td className={`px-4 py-2 ${OUTCOME_STYLE[e.outcome] ?? ""}`}>{e.outcome}</td>
              <td className="max-w-md px-4 py-2 text-xs text-muted">
                {describeDetails(e.details)}
                {e.ip ? <div>from {e.ip}</div> : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {data.length === 0 ? <p className="p-6 text-center text-muted">Nothing has happened yet.</p> : null}
    </Card>
  );
}
