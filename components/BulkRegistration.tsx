"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type ChangeEvent } from "react";
import {
  clusterAdminEndpoints,
  type BulkContext,
  type CreateRegistrationJobRequest,
  type RegistrationItem,
  type RegistrationJobProgress,
} from "@/server/clusters/contract";
import { call } from "./api";
import { keys, queries } from "./queries";
import { Alert, Button, Card, Field, TextInput } from "./ui";

const JOB_PARAM = "registration-job";

/**
 * Registering many clusters at once: upload a kubeconfig, see what each context would become,
 * choose, register, and follow the job until every context is registered, already there, or
 * failed with its reason.
 */
export function BulkRegistration({ initialJobId = null }: { initialJobId?: string | null }) {
  const [kubeconfig, setKubeconfig] = useState("");
  const [contexts, setContexts] = useState<BulkContext[]>([]);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [labels, setLabels] = useState("");
  const [jobId, setJobId] = useState<string | null>(initialJobId);
  const [error, setError] = useState<string | null>(null);

  // The job's id is kept in the address (?registration-job=…), so a reload, or the link sent to another admin, shows its progress again.
  const showJob = (id: string | null) => {
    setJobId(id);
    const url = new URL(window.location.href);
    if (id) url.searchParams.set(JOB_PARAM, id);
    else url.searchParams.delete(JOB_PARAM);
    window.history.replaceState(null, "", url);
  };

  const preview = useMutation({
    mutationFn: (text: string) => call(clusterAdminEndpoints.previewRegistrationJob, { body: { kubeconfig: text } }),
    onSuccess: ({ contexts }) => {
      setContexts(contexts);
      // Everything that can be registered and is not registered yet.
      setSelected(new Set(contexts.filter((c) => c.accepted && !c.registered).map((c) => c.context)));
      showJob(null);
      setError(null);
    },
    onError: (e) => {
      setContexts([]);
      setSelected(new Set());
      setError(e.message);
    },
  });

  const start = useMutation({
    mutationFn: (body: CreateRegistrationJobRequest) => call(clusterAdminEndpoints.createRegistrationJob, { body }).then((r) => r.job),
    onSuccess: (job) => {
      showJob(job.id);
      setError(null);
    },
    onError: (e) => setError(e.message),
  });

  async function onFile(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    if (!file) return;
    const text = await file.text();
    setKubeconfig(text);
    preview.mutate(text);
  }

  const selectable = contexts.filter((c) => c.accepted);
  const toggle = (context: string, on: boolean) =>
    setSelected((current) => {
      const next = new Set(current);
      if (on) next.add(context);
      else next.delete(context);
      return next;
    });

  function register() {
    const chosen = contexts.filter((c) => selected.has(c.context)).map((c) => ({ context: c.context }));
    start.mutate({ kubeconfig, contexts: chosen, labels });
  }

  return (
    <Card className="p-5">
      <section className="flex flex-col gap-4" aria-label="Register many clusters">
        <h2 className="text-lg font-semibold">Register many clusters from a kubeconfig</h2>
        <Field
          label="Kubeconfig with many contexts"
          htmlFor="bulk-kubeconfig-file"
          hint="Every context becomes a cluster you can choose. Tokens and client certificates must be inline; up to 500 contexts and 2 MiB."
        >
          <input id="bulk-kubeconfig-file" type="file" accept=".yaml,.yml,.json,.kubeconfig,text/*" onChange={onFile} className="text-sm" />
        </Field>
        {preview.isPending ? <p className="text-sm text-muted">Reading the kubeconfig…</p> : null}
        {error ? <Alert tone="error">{error}</Alert> : null}
        {contexts.length > 0 && !jobId ? (
          <>
            <ContextTable contexts={contexts} selected={selected} onToggle={toggle} />
            <div className="flex flex-wrap items-end gap-3">
              <Button type="button" variant="secondary" onClick={() => setSelected(new Set(selectable.map((c) => c.context)))}>
                Select all
              </Button>
              <Button type="button" variant="secondary" onClick={() => setSelected(new Set())}>
                Select none
              </Button>
              <p className="text-sm text-muted" aria-live="polite" data-testid="bulk-selected">
                {selected.size} of {contexts.length} contexts selected
              </p>
            </div>
            <Field label="Labels for every cluster" htmlFor="bulk-labels" hint="key=value, separated by commas, e.g. site=plant-3">
              <TextInput id="bulk-labels" value={labels} onChange={(e) => setLabels(e.target.value)} />
            </Field>
            <div>
              <Button type="button" disabled={selected.size === 0 || start.isPending} onClick={register}>
                {start.isPending ? "Starting…" : `Register ${selected.size} cluster${selected.size === 1 ? "" : "s"}`}
              </Button>
            </div>
          </>
        ) : null}
        {jobId ? (
          <JobProgress
            id={jobId}
            onAgain={() => {
              showJob(null);
              if (kubeconfig) preview.mutate(kubeconfig);
            }}
          />
        ) : null}
      </section>
    </Card>
  );
}

function ContextTable({
  contexts,
  selected,
  onToggle,
}: {
  contexts: BulkContext[];
  selected: Set<string>;
  onToggle: (context: string, on: boolean) => void;
}) {
  return (
    <div className="max-h-[28rem] overflow-auto rounded-md border border-line">
      <table className="w-full min-w-[36rem] text-left text-sm">
        <caption className="sr-only">Contexts of the kubeconfig</caption>
        <thead className="sticky top-0 border-b border-line bg-surface text-muted">
          <tr>
            <th scope="col" className="px-3 py-2 font-medium">
              <span className="sr-only">Register</span>
            </th>
            <th scope="col" className="px-3 py-2 font-medium">
              Context
            </th>
            <th scope="col" className="px-3 py-2 font-medium">
              Cluster name
            </th>
            <th scope="col" className="px-3 py-2 font-medium">
              API
            </th>
            <th scope="col" className="px-3 py-2 font-medium">
              Credentials
            </th>
          </tr>
        </thead>
        <tbody>
          {contexts.map((c) => (
            <tr key={c.context} className="border-b border-line last:border-0" data-context={c.context}>
              <td className="px-3 py-2">
                <input
                  type="checkbox"
                  aria-label={`Register ${c.context}`}
                  checked={selected.has(c.context)}
                  disabled={!c.accepted}
                  onChange={(e) => onToggle(c.context, e.target.checked)}
                />
              </td>
              <td className="px-3 py-2 font-mono text-xs">{c.context}</td>
              <td className="px-3 py-2">
                {c.name}
                {c.registered ? (
                  <div className="text-xs text-muted">
                    Already registered as {c.registered.cluster}
                    {c.registered.by === "api-url" ? " (same API URL)" : ""}
                  </div>
                ) : null}
              </td>
              <td className="px-3 py-2 font-mono text-xs">{c.apiUrl || "—"}</td>
              <td className="px-3 py-2">
                {c.credentialKind}
                {c.reason ? <div className="text-xs text-danger">Not accepted: {c.reason}</div> : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const STATUS_TEXT: Record<RegistrationItem["status"], string> = {
  pending: "Waiting",
  testing: "Testing the connection",
  registered: "Registered",
  duplicate: "Already registered",
  failed: "Failed",
};

function JobProgress({ id, onAgain }: { id: string; onAgain: () => void }) {
  const queryClient = useQueryClient();
  const job = useQuery({
    ...queries.registrationJob(id),
    refetchInterval: (query) => (query.state.data?.finishedAt ? false : 1_000),
  });
  const finished = Boolean(job.data?.finishedAt);
  useEffect(() => {
    if (!finished) return;
    void queryClient.invalidateQueries({ queryKey: keys.clusters });
    void queryClient.invalidateQueries({ queryKey: keys.fleet });
  }, [finished, queryClient]);
  if (job.error) return <Alert tone="error">{job.error.message}</Alert>;
  if (!job.data) return <p className="text-sm text-muted">Starting…</p>;
  return <JobView job={job.data} onAgain={onAgain} />;
}

function JobView({ job, onAgain }: { job: RegistrationJobProgress; onAgain: () => void }) {
  const { counts } = job;
  const done = counts.registered + counts.duplicate + counts.failed;
  const percent = counts.total ? Math.round((done / counts.total) * 100) : 100;
  const failed = job.items.filter((i) => i.status === "failed");
  const duplicates = job.items.filter((i) => i.status === "duplicate");
  const registered = job.items.filter((i) => i.status === "registered");
  return (
    <div className="flex flex-col gap-4">
      <div>
        <div className="mb-1 flex justify-between text-sm">
          <span id="bulk-progress-label" className="font-medium">
            {job.finishedAt ? "Registration finished" : "Registering…"}
          </span>
          <span data-testid="bulk-progress-text">
            {done} of {counts.total} done: {counts.registered} registered, {counts.duplicate} already registered, {counts.failed} failed
          </span>
        </div>
        <div
          role="progressbar"
          aria-labelledby="bulk-progress-label"
          aria-valuemin={0}
          aria-valuemax={counts.total}
          aria-valuenow={done}
          className="h-3 w-full overflow-hidden rounded-full bg-canvas"
        >
          <div className="h-full bg-accent transition-all" style={{ width: `${percent}%` }} />
        </div>
      </div>
      <section aria-label="Registration results" className="flex flex-col gap-3">
        {failed.length > 0 ? <ItemList title={`Failed (${failed.length})`} items={failed} tone="text-danger" /> : null}
        {duplicates.length > 0 ? (
          <ItemList title={`Already registered (${duplicates.length})`} items={duplicates} tone="text-muted" />
        ) : null}
        {registered.length > 0 ? <ItemList title={`Registered (${registered.length})`} items={registered} tone="text-ok" compact /> : null}
        {job.items.some((i) => i.status === "pending" || i.status === "testing") ? (
          <ItemList
            title="In progress"
            items={job.items.filter((i) => i.status === "pending" || i.status === "testing")}
            tone="text-muted"
            compact
          />
        ) : null}
      </section>
      {job.finishedAt ? (
        <div>
          <Button type="button" variant="secondary" onClick={onAgain}>
            Back to the contexts
          </Button>
        </div>
      ) : null}
    </div>
  );
}

function ItemList({ title, items, tone, compact }: { title: string; items: RegistrationItem[]; tone: string; compact?: boolean }) {
  return (
    <div>
      <h3 className={`mb-1 text-sm font-semibold ${tone}`}>{title}</h3>
      <ul className={compact ? "flex flex-wrap gap-x-3 gap-y-1 text-sm" : "flex flex-col gap-1 text-sm"} aria-label={title}>
        {items.map((item) => (
          <li key={item.position} data-item={item.context} data-status={item.status}>
            {compact ? (
              <span title={`${STATUS_TEXT[item.status]}${item.openshiftVersion ? `, OpenShift ${item.openshiftVersion}` : ""}`}>
                {item.name}
              </span>
            ) : (
              <>
                <span className="font-medium">{item.name}</span> <span className="font-mono text-xs text-muted">({item.context})</span>:{" "}
                {item.reason}
              </>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
