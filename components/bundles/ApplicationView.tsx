"use client";

import { formatDate, formatDuration } from "@/lib/format";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { bundleEndpoints, type ApplicationProgress, type NodeProgress } from "@/server/bundles/contract";
import { can, type Me } from "../access";
import { call } from "../api";
import { LastUpdated } from "../fleet/status";
import { keys, queries } from "../queries";
import type { Seed } from "../seed";
import { useSeededQuery } from "../seededQuery";
import { Alert, Button, Card } from "../ui";
import { STATE_WORDS } from "./words";

const NODE_STYLE: Record<NodeProgress["state"], string> = {
  done: "bg-ok/10 text-ok",
  pulling: "bg-accent/10 text-accent",
  waiting: "bg-muted/10 text-muted",
  failed: "bg-danger/10 text-danger",
};

function ProgressBar({ summary }: { summary: ApplicationProgress["summary"] }) {
  const pct = (n: number) => (summary.total ? (100 * n) / summary.total : 0);
  return (
    <div>
      <div
        role="progressbar"
        aria-label="Nodes with the images"
        aria-valuemin={0}
        aria-valuemax={summary.total}
        aria-valuenow={summary.done}
        aria-valuetext={`${summary.done} of ${summary.total} nodes done`}
        className="flex h-4 w-full overflow-hidden rounded bg-line"
      >
        <div className="bg-ok" style={{ width: `${pct(summary.done)}%` }} />
        <div className="bg-accent/60" style={{ width: `${pct(summary.pulling)}%` }} />
        <div className="bg-danger" style={{ width: `${pct(summary.failed)}%` }} />
      </div>
      <p className="mt-1 text-sm">
        <strong>
          {summary.done} of {summary.total} nodes done
        </strong>
        {summary.pulling ? `, ${summary.pulling} pulling` : ""}
        {summary.waiting ? `, ${summary.waiting} waiting` : ""}
        {summary.failed ? <span className="text-danger">, {summary.failed} failed</span> : ""}
      </p>
    </div>
  );
}

/** The one sentence at the top: where things stand and what to do next. */
/** Minutes after which "waiting for the MCO" is no longer the usual start, and worth a look. */
const USUAL_PICKUP_MS = 10 * 60_000;

/**
 * Before any node pulls: whether the wait so far is the usual start, and what to look at when not.
 * The MCO first puts the set on each pool, then every node's daemon starts the pull and reports it on
 * its MachineConfigNode (docs/bundle-format.md); Fleetskew sees that at its next read of the cluster.
 */
function waitingWords(p: ApplicationProgress): string {
  const waited = Date.parse(p.observedAt) - Date.parse(p.application.createdAt);
  const since = Number.isFinite(waited) && waited > 0 ? ` It has been ${formatDuration(waited)}.` : "";
  return waited > USUAL_PICKUP_MS
    ? `No node has started pulling yet.${since} That is longer than the usual few minutes: check that the Machine Config Operator is not degraded (oc get co machine-config) and that the pools list the set (oc get mcp -o yaml, spec.pinnedImageSets). This page updates by itself.`
    : `Waiting for the Machine Config Operator to pick up the set on each pool; then every node starts pulling and reports it.${since} A few minutes of this is normal; nothing to do but wait, this page updates by itself.`;
}

function NextStep({ p }: { p: ApplicationProgress }) {
  const a = p.application;
  const u = p.upgrade;
  switch (a.state) {
    case "applying":
      return (
        <Alert tone={a.lastError ? "error" : "info"}>
          {a.lastError
            ? `Fleetskew could not create the image sets yet: ${a.lastError}. It tries again every few minutes; if this stays, show this message to an admin, or give up the pre-load below.`
            : "Creating one PinnedImageSet per pool on the cluster…"}
        </Alert>
      );
    case "preloading":
      if (p.summary.failed)
        return (
          <Alert tone="error">
            {p.summary.failed} node{p.summary.failed === 1 ? "" : "s"} could not pre-load the images. The table below says what to do for
            each; the MCO retries by itself once the cause is fixed.
          </Alert>
        );
      if (!p.summary.allDone)
        return (
          <Alert tone="info">
            {p.summary.pulling || p.summary.done
              ? "The nodes are pulling the images. Nothing to do but wait; this page updates by itself."
              : waitingWords(p)}
            {p.summary.retrying
              ? ` ${p.summary.retrying} node${p.summary.retrying === 1 ? " is" : "s are"} still pulling in another attempt: the MCO gives each attempt a few minutes, and when a large bundle is not in by then it starts the next one at once, keeping what it pulled. The node reports PinnedImageSetsDegraded until it is done; that is not a failure.`
              : ""}
          </Alert>
        );
      return p.blockers.length ? (
        <Alert tone="error">Every node has the images, but something still stands in the way of the upgrade (below).</Alert>
      ) : (
        <Alert tone="ok">Every node has the images and the cluster is ready to upgrade to {a.releaseVersion}.</Alert>
      );
    case "upgrading":
      return (
        <Alert tone={u.refused ? "error" : "info"}>
          {u.refused
            ? `The cluster did not accept the update: ${u.refused}`
            : `Upgrading to ${a.releaseVersion}, ${
                a.upgradeStartedBy ? `started by ${a.upgradeStartedBy}` : "found under way on the cluster (not started from Fleetskew)"
              } at ${formatDate(a.upgradeStartedAt!)}. ${u.progressing ?? ""}`}
        </Alert>
      );
    case "upgraded":
      return <Alert tone="ok">The cluster runs {a.releaseVersion}. Its images can be unpinned to free the nodes&apos; disk.</Alert>;
    case "unpinning":
      return (
        <Alert tone={a.lastError ? "error" : "info"}>
          {a.lastError
            ? `Unpinning did not finish: ${a.lastError}. Fleetskew tries again every few minutes.`
            : "Removing the bundle's PinnedImageSets from the cluster…"}
        </Alert>
      );
    default:
      return (
        <Alert tone="ok">
          {a.upgradedAt
            ? `Done: the upgrade completed and the bundle's images were unpinned on ${formatDate(a.unpinnedAt!)}.`
            : `The pre-load was given up and the bundle's images were unpinned on ${formatDate(a.unpinnedAt!)}. Apply the bundle again to start over.`}
        </Alert>
      );
  }
}

function StartUpgrade({ p, me }: { p: ApplicationProgress; me: Me }) {
  const queryClient = useQueryClient();
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);
  const start = useMutation({
    mutationFn: (overrideReason?: string) =>
      call(bundleEndpoints.startUpgrade, { params: { id: p.application.id }, body: overrideReason ? { overrideReason } : {} }),
    onSuccess: () => {
      setError(null);
      void queryClient.invalidateQueries({ queryKey: keys.applications });
    },
    onError: (e) => {
      setError(e.message);
      // A start that is not confirmed may still be under way: show what the cluster says now.
      void queryClient.invalidateQueries({ queryKey: keys.applications });
    },
  });
  if (p.application.state !== "preloading" || !can(me, ["technician"])) return null;
  const blocked = p.blockers.length > 0;
  const pending = p.application.upgradeStartedBy && p.application.upgradeStartedAt;
  return (
    <Card className="p-5">
      <h2 className="text-lg font-semibold">Start the upgrade</h2>
      {pending && !error ? (
        <Alert tone="info">
          {`${p.application.upgradeStartedBy} pressed Start upgrade at ${formatDate(p.application.upgradeStartedAt!)}, and the cluster has not confirmed it yet. This page shows the upgrade once it is under way; if it has not started in a few minutes, start it again.`}
        </Alert>
      ) : null}
      {blocked ? (
        <>
          <p className="text-sm">Not yet, because:</p>
          <ul className="mt-1 list-disc pl-5 text-sm" aria-label="Why the upgrade cannot start">
            {p.blockers.map((b) => (
              <li key={b}>{b}</li>
            ))}
          </ul>
        </>
      ) : (
        <p className="text-sm">
          This sets the cluster&apos;s desired update to {p.application.releaseVersion} ({p.manifest.releaseImage}). The nodes reboot one by
          one; they already hold the images.
        </p>
      )}
      <div className="mt-3 flex flex-col gap-2">
        {!blocked ? (
          <div>
            <Button type="button" disabled={start.isPending} onClick={() => start.mutate(undefined)}>
              {start.isPending ? "Starting…" : "Start upgrade"}
            </Button>
          </div>
        ) : me.role === "admin" && p.overridable ? (
          <>
            <label htmlFor="override" className="text-sm font-medium">
              Start anyway despite the failing readiness checks: why (recorded in the audit log)
            </label>
            <textarea
              id="override"
              className="min-h-20 rounded-md border border-line bg-surface px-3 py-2 text-sm"
              value={reason}
              onChange={(e) => setReason(e.target.value)}
            />
            <div>
              <Button
                type="button"
                variant="danger"
                disabled={reason.trim().length < 10 || start.isPending}
                onClick={() => start.mutate(reason)}
              >
                Start upgrade anyway
              </Button>
            </div>
          </>
        ) : (
          <p className="text-sm text-muted">
            When the reasons above are resolved, the button appears here.{" "}
            {p.overridable
              ? "An admin can start it anyway with a written reason."
              : "Only failing readiness checks can be overridden (by an admin, with a written reason); the other reasons must be resolved first."}
          </p>
        )}
        {error ? <Alert tone="error">{error}</Alert> : null}
      </div>
    </Card>
  );
}

function Unpin({ p, me }: { p: ApplicationProgress; me: Me }) {
  const queryClient = useQueryClient();
  const unpin = useMutation({
    mutationFn: () => call(bundleEndpoints.unpin, { params: { id: p.application.id } }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: keys.applications }),
  });
  if (!can(me, ["technician"]) || !["upgraded", "preloading", "applying"].includes(p.application.state)) return null;
  return (
    <div className="flex flex-col gap-2">
      <div>
        <Button
          type="button"
          variant={p.application.state === "upgraded" ? "primary" : "secondary"}
          disabled={unpin.isPending}
          onClick={() => unpin.mutate()}
        >
          {p.application.state === "upgraded" ? "Unpin this bundle's images" : "Give up the pre-load and unpin"}
        </Button>
      </div>
      {unpin.error ? <Alert tone="error">{unpin.error.message}</Alert> : null}
    </div>
  );
}

export function ApplicationView({ id, me, initial }: { id: string; me: Me; initial: Seed<ApplicationProgress> }) {
  const q = useSeededQuery({ ...queries.application(id), refetchInterval: 3_000 }, initial);
  const p = q.data;
  const a = p.application;
  const readinessIssues = (p.readiness?.checks ?? []).filter((c) => c.status === "fail" || c.status === "warn");
  return (
    <div className="flex flex-col gap-4">
      <Card className="flex flex-col gap-3 p-5">
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <p className="text-sm">
            <span className="font-semibold">{STATE_WORDS[a.state]}</span> · bundle sha256:{a.bundleDigest.slice(0, 12)}… ·{" "}
            {p.manifest.images} images, {p.manifest.size} · applied by {a.createdBy} on {formatDate(a.createdAt)}
          </p>
          <LastUpdated at={q.dataUpdatedAt} fetching={q.isFetching} />
        </div>
        {p.sourceNote ? <Alert tone="info">{p.sourceNote}</Alert> : null}
        <NextStep p={p} />
        {a.state === "preloading" || a.state === "applying" ? <ProgressBar summary={p.summary} /> : null}
        <Unpin p={p} me={me} />
      </Card>

      <StartUpgrade p={p} me={me} />

      <Card className="relative overflow-x-auto">
        <h2 className="px-5 pt-4 text-lg font-semibold">Nodes</h2>
        <table className="mt-2 w-full min-w-[36rem] text-left text-sm">
          <caption className="sr-only">Pre-load progress per node</caption>
          <thead className="border-b border-line text-muted">
            <tr>
              {["Node", "Pool", "State", "What to do"].map((h) => (
                <th key={h} scope="col" className="px-5 py-2 font-medium">
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {p.nodes.map((n) => (
              <tr key={n.node} data-node={n.node} data-state={n.state} className="border-b border-line align-top last:border-0">
                <th scope="row" className="px-5 py-2 font-medium">
                  {n.node}
                </th>
                <td className="px-5 py-2">{n.pool}</td>
                <td className="px-5 py-2">
                  <span className={`inline-flex rounded px-2 py-0.5 text-xs font-medium ${NODE_STYLE[n.state]}`}>{n.label}</span>
                </td>
                <td className="px-5 py-2 text-xs">
                  {n.remedy ?? "—"}
                  {n.error ? (
                    <details className="mt-1">
                      <summary className="cursor-pointer text-muted">The node&apos;s message</summary>
                      <code className="block whitespace-pre-wrap break-all">{n.error}</code>
                    </details>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Card>

      {p.readiness ? (
        <Card className="p-5">
          <h2 className="text-lg font-semibold">Readiness for {a.releaseVersion}</h2>
          {readinessIssues.length === 0 ? (
            <p className="text-sm text-ok">No check fails or warns.</p>
          ) : (
            <ul className="mt-2 flex flex-col gap-2 text-sm">
              {readinessIssues.map((c) => (
                <li
                  key={c.id}
                  data-check={c.id}
                  data-status={c.status}
                  className={`border-l-4 pl-3 ${c.status === "fail" ? "border-danger" : "border-warn"}`}
                >
                  <p className="font-medium">{c.title}</p>
                  <p>{c.detail}</p>
                  {c.remediation ? <p className="text-muted">What to do: {c.remediation}</p> : null}
                </li>
              ))}
            </ul>
          )}
          <p className="mt-3 text-sm">
            <Link className="text-accent hover:underline" href={`/clusters/${encodeURIComponent(a.cluster)}`}>
              Open {a.cluster}
            </Link>{" "}
            for its full checklist and history.
          </p>
        </Card>
      ) : null}
    </div>
  );
}
