"use client";

import { useQuery } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { api } from "../api";
import type { Seed } from "../seed";
import { useSeededQuery } from "../seededQuery";
import { LastContact } from "../LastContact";
import { Alert, Button, Card, TextInput } from "../ui";
import { SkewTimelineChart } from "./SkewTimelineChart";
import { LastUpdated, READINESS, ReadinessBadge, SkewBadge } from "./status";
import type { ClusterDetail, Condition, Readiness, Snapshot } from "./types";

const PROVENANCE: Record<string, string> = {
  stream: "the image the cluster's boot image stream names",
  "image-name": "read from the image name",
  catalog: "learned from another cluster's boot image stream",
  "install-version": "assumed: the image the cluster was installed with",
  unknown: "unknown",
};

function Section({ title, children, description }: { title: string; description?: ReactNode; children: ReactNode }) {
  return (
    <Card className="p-4">
      <h2 className="font-semibold">{title}</h2>
      {description ? <p className="text-xs text-muted">{description}</p> : null}
      <div className="mt-3">{children}</div>
    </Card>
  );
}

function Table({ caption, head, rows }: { caption: string; head: string[]; rows: ReactNode[][] }) {
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-left text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead className="border-b border-line text-muted">
          <tr>
            {head.map((h) => (
              <th key={h} scope="col" className="px-2 py-2 font-medium">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i} className="border-b border-line align-top last:border-0">
              {r.map((cell, j) =>
                j === 0 ? (
                  <th key={j} scope="row" className="px-2 py-2 font-medium">
                    {cell}
                  </th>
                ) : (
                  <td key={j} className="px-2 py-2">
                    {cell}
                  </td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Conditions({ title, conditions }: { title: string; conditions: Condition[] | null | undefined }) {
  if (!conditions?.length) return null;
  return (
    <div>
      <h3 className="mt-2 text-sm font-semibold">{title}</h3>
      <Table
        caption={title}
        head={["Type", "Status", "Reason", "Message"]}
        rows={conditions.map((c) => [c.type, c.status, c.reason ?? "", <span className="text-xs">{c.message ?? ""}</span>])}
      />
    </div>
  );
}

export function ReadinessPanel({ cluster, initial }: { cluster: string; initial: Readiness | null }) {
  const [draft, setDraft] = useState(initial?.target ?? "");
  const [target, setTarget] = useState<string | null>(null);
  const q = useQuery({
    queryKey: ["readiness", cluster, target],
    queryFn: () =>
      api<{ readiness: Readiness }>(
        `/api/v1/clusters/${encodeURIComponent(cluster)}/readiness${target ? `?target=${encodeURIComponent(target)}` : ""}`,
      ).then((r) => r.readiness),
    initialData: target === null ? (initial ?? undefined) : undefined,
    refetchInterval: 30_000,
  });
  const r = q.data;
  const order = { fail: 0, warn: 1, unknown: 2, pass: 3 };
  return (
    <Section
      title="Upgrade readiness"
      description="Checks with OpenShift's own signals for a target version. A failed check blocks the update; a warning needs a look first."
    >
      <form
        className="flex flex-wrap items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          setTarget(draft.trim() || null);
        }}
      >
        <label className="flex flex-col gap-1 text-sm">
          <span className="font-medium">Target version</span>
          <TextInput
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            placeholder="4.22.3"
            className="w-32"
            aria-describedby="target-hint"
          />
        </label>
        <Button type="submit">Check</Button>
        <span id="target-hint" className="pb-2 text-xs text-muted">
          Default: the next minor release. A z-stream (same minor) is not blocked by Upgradeable=False.
        </span>
      </form>
      {q.error ? (
        <div className="mt-3">
          <Alert tone="error">{(q.error as Error).message}</Alert>
        </div>
      ) : null}
      {r ? (
        <div className="mt-4">
          <p className="flex flex-wrap items-center gap-2 text-sm">
            <ReadinessBadge status={r.status} /> {r.current ?? "?"} → <strong>{r.target}</strong>{" "}
            <span className="text-muted">({r.updateKind} update)</span>
          </p>
          <ul className="mt-3 divide-y divide-line" aria-label={`Readiness checks for ${r.target}`}>
            {[...r.checks]
              .sort((a, b) => order[a.status] - order[b.status])
              .map((c) => (
                <li key={c.id} className="py-2" data-check={c.id} data-status={c.status}>
                  <div className="flex items-start gap-2">
                    <span
                      className={`mt-0.5 inline-flex h-5 w-5 shrink-0 items-center justify-center rounded-full text-xs ${READINESS[c.status].className}`}
                      aria-label={READINESS[c.status].label}
                    >
                      {READINESS[c.status].icon}
                    </span>
                    <div className="min-w-0">
                      <p className="font-medium">{c.title}</p>
                      <p className="text-sm">{c.detail}</p>
                      {c.remediation ? <p className="mt-1 text-sm text-muted">What to do: {c.remediation}</p> : null}
                      {c.evidence.length ? (
                        <p className="mt-1 font-mono text-xs text-muted">
                          {c.evidence
                            .map((e) => `${e.kind}/${e.namespace ? `${e.namespace}/` : ""}${e.name}${e.field ? ` ${e.field}` : ""}`)
                            .join(" · ")}
                        </p>
                      ) : null}
                    </div>
                  </div>
                </li>
              ))}
          </ul>
        </div>
      ) : null}
    </Section>
  );
}

function MachineSets({ detail }: { detail: ClusterDetail }) {
  const s = detail.snapshot!;
  const lag = new Map(detail.lags.map((l) => [l.machineSet, l.lagMinors]));
  return (
    <Section
      title="MachineSets and their boot images"
      description="Which image new nodes of each MachineSet boot from, what release that is, how Fleetskew knows, and whether the MCO updates it."
    >
      <Table
        caption="MachineSets"
        head={["MachineSet", "Boot image", "Release", "Lag", "How known", "MCO"]}
        rows={s.machineSets.map((m) => [
          <>
            {m.machineSet}
            {m.replicas !== null ? (
              <div className="text-xs font-normal text-muted">
                {m.replicas} {m.replicas === 1 ? "replica" : "replicas"}
              </div>
            ) : null}
          </>,
          <span className="font-mono text-xs">{m.display}</span>,
          <>
            {m.ocpVersion ?? "—"}
            {m.rhcosBuild ? <div className="font-mono text-xs text-muted">{m.rhcosBuild}</div> : null}
          </>,
          lag.get(m.machineSet) !== null && lag.get(m.machineSet) !== undefined ? `${lag.get(m.machineSet)} minor` : "—",
          <span className={m.provenance === "install-version" || m.provenance === "unknown" ? "text-warn" : ""}>
            {PROVENANCE[m.provenance] ?? m.provenance}
          </span>,
          <>
            <span className={m.mco.action === "update" ? "text-ok" : "text-warn"}>{m.mco.action === "update" ? "Managed" : "Skipped"}</span>
            <div className="text-xs text-muted">{m.mco.reason}</div>
          </>,
        ])}
      />
      {detail.managedWhatIf ? (
        <p className="mt-3 text-sm">
          <strong>If managed boot images were enabled for all MachineSets:</strong> {detail.managedWhatIf.wouldUpdate.length} would be
          updated
          {detail.managedWhatIf.wouldSkip.length
            ? `, ${detail.managedWhatIf.wouldSkip.length} still skipped (${detail.managedWhatIf.wouldSkip.map((w) => `${w.machineSet}: ${w.reason}`).join("; ")})`
            : ""}
          . Skew enforcement would then be {detail.managedWhatIf.result}.
        </p>
      ) : null}
    </Section>
  );
}

function PoolsAndNodes({ s }: { s: Snapshot }) {
  return (
    <Section title="Pools and nodes">
      <Table
        caption="MachineConfigPools"
        head={["Pool", "Machines", "Ready", "Updated", "State", "Pinned image sets"]}
        rows={s.pools.map((p) => [
          <>
            {p.name}
            {p.imageMode ? <div className="text-xs font-normal text-muted">image mode</div> : null}
          </>,
          p.machineCount,
          p.readyMachineCount,
          p.updatedMachineCount,
          <span className={p.degraded ? "text-danger" : p.paused || p.updating ? "text-warn" : "text-ok"}>
            {p.degraded ? "Degraded" : p.paused ? "Paused" : p.updating ? "Updating" : "Up to date"}
          </span>,
          p.pinnedImageSets.join(", ") || "—",
        ])}
      />
      <details className="mt-3">
        <summary className="cursor-pointer text-sm font-medium">Nodes ({s.nodes.length})</summary>
        <Table
          caption="Nodes"
          head={["Node", "Pool", "Roles", "Ready", "OS", "Pinned images"]}
          rows={s.nodes.map((n) => [
            <span className="font-mono text-xs">{n.name}</span>,
            n.pool ?? "—",
            n.roles.join(", "),
            n.ready === null ? "?" : n.ready ? "Yes" : <span className="text-danger">No</span>,
            <span className="text-xs">{n.osImage ?? "—"}</span>,
            n.pinned.length ? (
              <span className={n.pinnedDegraded ? "text-danger" : ""}>
                {n.pinned
                  .map((p) =>
                    p.lastFailedGeneration !== null && p.lastFailedGeneration >= (p.desiredGeneration ?? 0)
                      ? `${p.set}: failed`
                      : p.currentGeneration === p.desiredGeneration
                        ? `${p.set}: done`
                        : `${p.set}: pulling`,
                  )
                  .join(", ")}
                {n.pinnedDegraded && n.pinned.find((p) => p.error) ? (
                  <div className="text-xs">{n.pinned.find((p) => p.error)!.error}</div>
                ) : null}
              </span>
            ) : (
              "—"
            ),
          ])}
        />
      </details>
    </Section>
  );
}

export function ClusterView({ name, initial }: { name: string; initial: Seed<ClusterDetail> }) {
  const q = useSeededQuery(
    {
      queryKey: ["cluster", name],
      queryFn: () => api<ClusterDetail>(`/api/v1/clusters/${encodeURIComponent(name)}`),
      refetchInterval: 15_000,
    },
    initial,
  );
  const d = q.data;
  const c = d.cluster;
  const s = d.snapshot;
  const a = d.skew?.assessment;
  return (
    <div className="flex flex-col gap-4">
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
              <dd>{c.offline ? c.lastSeenAt ? new Date(c.lastSeenAt).toLocaleString() : "—" : <LastContact cluster={c} />}</dd>
            </div>
          </dl>
          <LastUpdated at={q.dataUpdatedAt} fetching={q.isFetching} />
        </div>
        {c.stale && !c.offline ? (
          <div className="mt-3">
            <Alert tone="error">
              The newest sweep did not succeed{c.lastContactError ? `: ${c.lastContactError}` : ""}. What is shown below is the last good
              state
              {d.observedAt ? ` (changed last at ${new Date(d.observedAt).toLocaleString()})` : ""}.
            </Alert>
          </div>
        ) : null}
        {c.offline ? (
          <p className="mt-3 text-sm text-muted">
            This is an offline cluster imported from object dumps; it is not swept. Import newer dumps to update it.
          </p>
        ) : null}
      </Card>
      {!s ? (
        <Card className="p-6 text-center text-muted">
          The collector has not read this cluster yet. It will appear here after its first sweep.
        </Card>
      ) : (
        <>
          {a ? (
            <Section
              title="Skew, the MCO's way"
              description={`How the Machine Config Operator of ${a.release} decides (${a.enforcement.source === "cluster" ? "read from the cluster" : "predicted"}).`}
            >
              <dl className="grid gap-2 text-sm sm:grid-cols-3">
                <div>
                  <dt className="text-muted">Effective mode</dt>
                  <dd className="font-medium">{a.enforcement.mode}</dd>
                  <dd className="text-xs text-muted">{a.enforcement.basis}</dd>
                </div>
                <div>
                  <dt className="text-muted">Value compared</dt>
                  <dd className="font-medium">{a.enforcement.value?.ocpVersion ?? a.enforcement.value?.rhcosVersion ?? "—"}</dd>
                  {a.enforcement.installVersionFallback ? (
                    <dd className="text-xs text-warn">the install version, assumed by the MCO</dd>
                  ) : null}
                </div>
                <div>
                  <dt className="text-muted">Limit at {a.release}</dt>
                  <dd className="font-medium">{a.limits ? `OCP ${a.limits.ocpVersion} / RHEL ${a.limits.rhelVersion}` : "not enforced"}</dd>
                </div>
              </dl>
              {a.block ? (
                <div className="mt-3 rounded-md border-l-4 border-danger bg-canvas p-3 text-sm">
                  <p className="font-medium">
                    Upgradeable=False, reason {a.block.reason} {a.block.source === "predicted" ? `(predicted once at ${a.release})` : ""}
                  </p>
                  <p className="mt-1">{a.block.message}</p>
                </div>
              ) : null}
              {a.notes.map((n) => (
                <p key={n} className="mt-2 text-xs text-muted">
                  {n}
                </p>
              ))}
            </Section>
          ) : null}
          <SkewTimelineChart cluster={name} />
          <MachineSets detail={d} />
          <ReadinessPanel cluster={name} initial={d.readiness} />
          <PoolsAndNodes s={s} />
          <Section title="Conditions">
            <Conditions title="ClusterVersion" conditions={s.version?.conditions} />
            <Conditions title="ClusterOperator machine-config" conditions={s.machineConfigOperator} />
          </Section>
          {s.problems.length ? (
            <Section title="What could not be read" description="Parts of the cluster Fleetskew could not read; the rest stands.">
              <ul className="list-disc pl-5 text-sm">
                {s.problems.map((p, i) => (
                  <li key={i}>
                    <strong>{p.part}</strong>: {p.message}
                  </li>
                ))}
              </ul>
            </Section>
          ) : null}
        </>
      )}
    </div>
  );
}
