"use client";

import { formatDate } from "@/lib/format";
import { useInfiniteQuery } from "@tanstack/react-query";
import { useDeferredValue, useState } from "react";
import { auditEndpoints, type AuditRecord } from "@/server/audit/contract";
import { call } from "./api";
import { keys } from "./queries";
import type { Seed } from "./seed";
import { Button, Card, Select, TextInput } from "./ui";

/** Details as "key: value" pairs; nested values stay JSON. */
function describeDetails(details: unknown): string {
  if (!details || typeof details !== "object") return details ? String(details) : "";
  return Object.entries(details as Record<string, unknown>)
    .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(" · ");
}

const OUTCOME_STYLE: Record<string, string> = { success: "text-ok", failure: "text-danger", denied: "text-warn" };

const ACTIONS: [string, string][] = [
  ["", "Everything"],
  ["session.", "Sign-ins"],
  ["user.", "Users"],
  ["cluster.register", "Cluster registrations"],
  ["cluster.write", "Writes to clusters"],
  ["bundle.", "Bundles and upgrades"],
  ["acknowledgement.", "Acknowledgements"],
  ["settings.", "Settings"],
];

type Outcome = AuditRecord["outcome"];
type Filters = { action: string; actor: string; target: string; outcome: "" | Outcome; from: string; to: string };
const NONE: Filters = { action: "", actor: "", target: "", outcome: "", from: "", to: "" };
const PAGE = 100;

const queryOf = (f: Filters, extra: Record<string, string> = {}) =>
  new URLSearchParams(Object.entries({ ...f, ...extra }).filter(([, v]) => v !== "")).toString();

export function AuditLog({ initial }: { initial: Seed<AuditRecord[]> }) {
  const [filters, setFilters] = useState<Filters>(NONE);
  const deferred = useDeferredValue(filters);
  const unfiltered = queryOf(deferred) === "";
  const q = useInfiniteQuery({
    queryKey: keys.audit(deferred),
    queryFn: ({ pageParam }) =>
      call(auditEndpoints.list, { query: { ...deferred, outcome: deferred.outcome || undefined, limit: PAGE, before: pageParam } }).then(
        (r) => r.events,
      ),
    initialPageParam: "",
    getNextPageParam: (last) => (last.length === PAGE ? last.at(-1)!.id : undefined),
    ...(unfiltered ? { initialData: { pages: [initial.data], pageParams: [""] }, initialDataUpdatedAt: initial.at } : {}),
    refetchInterval: 30_000,
  });
  const events = q.data?.pages.flat() ?? [];
  const set = (patch: Partial<Filters>) => setFilters((f) => ({ ...f, ...patch }));
  return (
    <Card className="relative overflow-x-auto">
      <form
        role="search"
        aria-label="Filter the audit log"
        className="flex flex-wrap items-end gap-3 border-b border-line p-4"
        onSubmit={(e) => e.preventDefault()}
      >
        <label className="flex flex-col gap-1 text-sm">
          <span className="font-medium">What</span>
          <Select value={filters.action} onChange={(e) => set({ action: e.target.value })}>
            {ACTIONS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </Select>
        </label>
        <label className="flex flex-col gap-1 text-sm">
          <span className="font-medium">Who</span>
          <TextInput
            value={filters.actor}
            onChange={(e) => set({ actor: e.target.value.trim() })}
            placeholder="username"
            className="w-32"
          />
        </label>
        <label className="flex flex-col gap-1 text-sm">
          <span className="font-medium">Target</span>
          <TextInput
            value={filters.target}
            onChange={(e) => set({ target: e.target.value.trim() })}
            placeholder="cluster, user…"
            className="w-40"
          />
        </label>
        <label className="flex flex-col gap-1 text-sm">
          <span className="font-medium">Outcome</span>
          <Select value={filters.outcome} onChange={(e) => set({ outcome: e.target.value as Filters["outcome"] })}>
            <option value="">Any</option>
            <option value="success">success</option>
            <option value="failure">failure</option>
            <option value="denied">denied</option>
          </Select>
        </label>
        <label className="flex flex-col gap-1 text-sm">
          <span className="font-medium">From</span>
          <TextInput type="date" value={filters.from} onChange={(e) => set({ from: e.target.value })} />
        </label>
        <label className="flex flex-col gap-1 text-sm">
          <span className="font-medium">Until</span>
          <TextInput type="date" value={filters.to} onChange={(e) => set({ to: e.target.value })} />
        </label>
        <a
          className="ml-auto rounded-md border border-line px-3.5 py-2 text-sm font-medium hover:bg-canvas"
          href={`/api/v1/audit?${queryOf(filters, { format: "csv" })}`}
          download
        >
          Export CSV
        </a>
      </form>
      {q.error ? (
        <p className="p-4 text-sm text-danger" role="alert">
          {q.error.message}
        </p>
      ) : null}
      {/* On a phone the log keeps readable columns and scrolls sideways in its own box. */}
      <div className="relative overflow-x-auto">
        <table className="w-full min-w-[48rem] text-left text-sm">
          <caption className="sr-only">Audit events{q.isFetching ? " (refreshing)" : ""}</caption>
          <thead className="whitespace-nowrap border-b border-line text-muted">
            <tr>
              {["When", "Who", "What", "Summary", "Outcome", "Details"].map((h) => (
                <th key={h} scope="col" className="px-4 py-3 font-medium">
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {events.map((e) => (
              <tr key={e.id} className="border-b border-line align-top last:border-0">
                <td className="whitespace-nowrap px-4 py-2">
                  <time dateTime={e.at}>{formatDate(e.at)}</time>
                </td>
                <td className="px-4 py-2">
                  {e.actor ?? <span className="text-muted">Fleetskew</span>}
                  {e.role ? <span className="block text-xs text-muted">{e.role}</span> : null}
                </td>
                <td className="px-4 py-2 font-mono text-xs">
                  {e.action}
                  {e.targetId ? <span className="block font-sans text-muted">{`${e.targetType ?? ""} ${e.targetId}`}</span> : null}
                </td>
                <td className="max-w-md px-4 py-2">{e.summary}</td>
                <td className={`px-4 py-2 ${OUTCOME_STYLE[e.outcome] ?? ""}`}>{e.outcome}</td>
                <td className="max-w-sm px-4 py-2 text-xs text-muted">
                  <details>
                    <summary className="cursor-pointer">details</summary>
                    {describeDetails(e.details)}
                    {e.ip ? <div>from {e.ip}</div> : null}
                  </details>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {events.length === 0 && !q.isFetching ? <p className="p-6 text-center text-muted">Nothing matches.</p> : null}
      {q.hasNextPage ? (
        <div className="p-4">
          <Button type="button" variant="secondary" disabled={q.isFetchingNextPage} onClick={() => void q.fetchNextPage()}>
            {q.isFetchingNextPage ? "Loading…" : "Older events"}
          </Button>
        </div>
      ) : null}
    </Card>
  );
}
