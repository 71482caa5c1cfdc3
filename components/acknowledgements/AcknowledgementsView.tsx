"use client";

import { formatDate, formatDay } from "@/lib/format";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { useEffect, useRef, useState, type FormEvent } from "react";
import {
  acknowledgementEndpoints,
  type AckMode,
  type AckStatus,
  type AcknowledgementView,
  type Candidate,
  type CandidateList,
} from "@/server/acknowledgements/contract";
import { can, type Me } from "../access";
import { call, fieldError, isFieldError } from "../api";
import { LastUpdated } from "../fleet/status";
import { keys, queries } from "../queries";
import type { Seed } from "../seed";
import { useSeededQuery } from "../seededQuery";
import { Alert, Button, Card, Field, TextInput } from "../ui";

type Mode = AckMode;
type Status = AckStatus;
type Acknowledgement = AcknowledgementView;

const STATUS: Record<Status, { label: string; className: string }> = {
  pending: { label: "Waiting for approval", className: "bg-warn/10 text-warn" },
  applying: { label: "Approved, writing", className: "bg-accent/10 text-accent" },
  applied: { label: "Applied", className: "bg-ok/10 text-ok" },
  failed: { label: "Failed", className: "bg-danger/10 text-danger" },
  rejected: { label: "Rejected", className: "bg-muted/10 text-muted" },
  expired: { label: "Expired", className: "bg-muted/10 text-muted" },
};

const valueOf = (a: { mode: Mode; ocpVersion: string | null; rhcosVersion: string | null }) =>
  a.mode === "None" ? "enforcement off (None)" : `${a.mode === "OCPVersion" ? "OCP" : "RHCOS"} ${a.ocpVersion ?? a.rhcosVersion}`;

function RequestForm({ candidate, onDone }: { candidate: Candidate; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [mode, setMode] = useState<Mode>("RHCOSVersion");
  const [value, setValue] = useState("");
  const [evidence, setEvidence] = useState("");
  const [machineSets, setMachineSets] = useState<string[]>([]);
  // What the form itself finds missing, checked before sending, so every empty field is marked at once.
  const [missing, setMissing] = useState<Record<string, string>>({});
  const formRef = useRef<HTMLFormElement>(null);
  useEffect(() => {
    // It opens below the button that asked for it: bring it into view, ready to type.
    formRef.current?.scrollIntoView({ behavior: "smooth", block: "nearest" });
    formRef.current?.querySelector<HTMLInputElement>("input:checked")?.focus({ preventScroll: true });
  }, []);
  const submit = useMutation({
    mutationFn: () =>
      call(acknowledgementEndpoints.request, {
        body: {
          cluster: candidate.cluster,
          mode,
          ...(mode === "OCPVersion" ? { ocpVersion: value } : mode === "RHCOSVersion" ? { rhcosVersion: value } : {}),
          evidence,
          machineSets,
        },
      }),
    onSuccess: () => {
      // The candidates are under the same key: a request or a decision changes them too.
      void queryClient.invalidateQueries({ queryKey: keys.acknowledgements });
      onDone();
    },
  });
  const field = mode === "OCPVersion" ? "ocpVersion" : "rhcosVersion";
  const valueError = missing[field] ?? fieldError(submit.error, field);
  const evidenceError = missing.evidence ?? fieldError(submit.error, "evidence");
  const otherError = submit.error && !isFieldError(submit.error, [field, "evidence"]) ? submit.error.message : null;
  return (
    <form
      ref={formRef}
      aria-label={`Request an acknowledgement for ${candidate.cluster}`}
      className="flex flex-col gap-3 rounded-md border border-line p-4"
      noValidate
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        const found: Record<string, string> = {};
        if (mode !== "None" && !value.trim())
          found[field] =
            mode === "RHCOSVersion"
              ? "Say which RHCOS build the oldest machine boots, e.g. 9.6.20250701-0"
              : "Say which OpenShift release the oldest machine's boot image came with, e.g. 4.19.0";
        if (evidence.trim().length < 10)
          found.evidence = "Describe the evidence in at least 10 characters: how do you know which boot image the oldest machine uses?";
        setMissing(found);
        submit.reset();
        const first = Object.keys(found)[0];
        if (first) {
          formRef.current?.querySelector<HTMLElement>(first === "evidence" ? "#ack-evidence" : "#ack-value")?.focus();
          return;
        }
        submit.mutate();
      }}
    >
      <fieldset className="flex flex-wrap gap-4 text-sm">
        <legend className="mb-1 font-medium">What the oldest boot image is</legend>
        {(
          [
            ["RHCOSVersion", "An RHCOS build"],
            ["OCPVersion", "An OpenShift release"],
            ["None", "Turn skew enforcement off"],
          ] as const
        ).map(([m, label]) => (
          <label key={m} className="flex items-center gap-2">
            <input type="radio" name="mode" value={m} checked={mode === m} onChange={() => setMode(m)} />
            {label}
          </label>
        ))}
      </fieldset>
      {mode !== "None" ? (
        <Field
          label={mode === "RHCOSVersion" ? "RHCOS build" : "OpenShift release"}
          htmlFor="ack-value"
          hint={mode === "RHCOSVersion" ? "e.g. 9.6.20250701-0 or 412.86.202212081411-0" : "e.g. 4.19.0 (x.y.z)"}
        >
          <TextInput
            id="ack-value"
            value={value}
            onChange={(e) => setValue(e.target.value)}
            aria-invalid={!!valueError}
            aria-describedby={valueError ? "ack-value-error" : undefined}
            className="font-mono"
          />
          {valueError ? (
            <span id="ack-value-error" role="alert" className="text-xs text-danger">
              {valueError}
            </span>
          ) : null}
        </Field>
      ) : (
        <Alert tone="error">
          With enforcement off the MCO stops checking boot images altogether. New machines may then fail to scale up from an old boot image,
          and the cluster raises the MCCBootImageSkewEnforcementNone alert.
        </Alert>
      )}
      <Field
        label="Evidence"
        htmlFor="ack-evidence"
        hint="How you know: which image each MachineSet boots now, and since when (a change ticket, console screenshots)."
      >
        <textarea
          id="ack-evidence"
          className="min-h-20 rounded-md border border-line bg-surface px-3 py-2 text-sm"
          value={evidence}
          onChange={(e) => setEvidence(e.target.value)}
          aria-invalid={!!evidenceError}
          aria-describedby={evidenceError ? "ack-evidence-error" : undefined}
        />
        {evidenceError ? (
          <span id="ack-evidence-error" role="alert" className="text-xs text-danger">
            {evidenceError}
          </span>
        ) : null}
      </Field>
      {candidate.machineSets.length ? (
        <fieldset className="text-sm">
          <legend className="mb-1 font-medium">MachineSets you confirm were updated (optional)</legend>
          {candidate.machineSets.map((m) => (
            <label key={m.name} className="flex items-center gap-2">
              <input
                type="checkbox"
                checked={machineSets.includes(m.name)}
                onChange={(e) => setMachineSets((cur) => (e.target.checked ? [...cur, m.name] : cur.filter((x) => x !== m.name)))}
              />
              {m.name} <span className="text-xs text-muted">(Fleetskew sees {m.bootImage ?? "an unknown image"})</span>
            </label>
          ))}
        </fieldset>
      ) : null}
      <div className="flex gap-2">
        <Button type="submit" disabled={submit.isPending}>
          Send for approval
        </Button>
        <Button type="button" variant="secondary" onClick={onDone}>
          Cancel
        </Button>
      </div>
      {otherError ? <Alert tone="error">{otherError}</Alert> : null}
    </form>
  );
}

function Candidates({ me }: { me: Me }) {
  const [draft, setDraft] = useState("");
  const [target, setTarget] = useState("");
  // "Request acknowledgement" beside a cluster's finding links here with ?request=<cluster>: its form opens.
  const [open, setOpen] = useState<string | null>(useSearchParams().get("request"));
  const q = useQuery({ ...queries.ackCandidates(target || null), refetchInterval: 30_000 });
  return (
    <Card className="p-5">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h2 className="text-lg font-semibold">Clusters that need an acknowledgement</h2>
          <p className="text-sm text-muted">
            Where boot images are updated by hand, the MCO compares the recorded oldest boot image with its limit, or assumes the install
            version.
          </p>
        </div>
        <form
          className="flex items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            setTarget(draft.trim());
          }}
        >
          <Field label="At release" htmlFor="ack-target" hint="Blank: the cluster's own, or the first that enforces.">
            <TextInput
              id="ack-target"
              value={draft}
              onChange={(e) => setDraft(e.target.value)}
              placeholder="e.g. 4.22.3"
              className="w-32"
            />
          </Field>
          <Button type="submit" variant="secondary" className="shrink-0">
            Show
          </Button>
        </form>
      </div>
      {q.error ? <Alert tone="error">{q.error.message}</Alert> : null}
      {q.data && q.data.length === 0 ? (
        <p className="mt-3 text-sm text-muted">None: every cluster is within the limit or managed automatically.</p>
      ) : null}
      {q.data && q.data.length > 0 ? <ManyAtOnce candidates={q.data} mayRequest={can(me, ["technician"])} /> : null}
      <ul className="mt-3 flex flex-col gap-3">
        {(q.data ?? []).slice(0, SHOWN).map((c) => (
          <li key={c.cluster} data-cluster={c.cluster} className="rounded-md border border-line p-3 text-sm">
            <div className="flex flex-wrap items-baseline justify-between gap-2">
              <p>
                <Link href={`/clusters/${encodeURIComponent(c.cluster)}`} className="font-semibold text-accent hover:underline">
                  {c.cluster}
                </Link>{" "}
                {c.version ? `(${c.version})` : ""} at {c.release}:{" "}
                <strong>{c.reason === "below-limit" ? "minor updates blocked" : "the MCO assumes the install version"}</strong>
              </p>
              {c.pending ? (
                <span className="text-xs text-muted">Request by {c.pending.requestedBy} waiting for approval</span>
              ) : !c.served ? (
                <span className="text-xs text-muted">
                  Its API has no bootImageSkewEnforcement yet (served by default from 4.22): update the cluster first
                </span>
              ) : can(me, ["technician"]) ? (
                <Button type="button" variant="secondary" onClick={() => setOpen(open === c.cluster ? null : c.cluster)}>
                  Request acknowledgement
                </Button>
              ) : null}
            </div>
            <p className="text-muted">{c.detail}</p>
            {c.assessment.block ? <p className="mt-1 text-xs">{c.assessment.block.message}</p> : null}
            {open === c.cluster ? (
              <div className="mt-3">
                <RequestForm candidate={c} onDone={() => setOpen(null)} />
              </div>
            ) : null}
          </li>
        ))}
      </ul>
      {(q.data?.length ?? 0) > SHOWN ? (
        <p className="mt-3 text-sm text-muted">and {(q.data!.length - SHOWN).toLocaleString()} more, which a rollout requests together</p>
      ) : null}
    </Card>
  );
}

/** Candidates listed one by one at most: more are requested together, as a rollout. */
const SHOWN = 200;

/** How many need one, and the way to request them all at once: an acknowledgement rollout over those that can take it. */
function ManyAtOnce({ candidates, mayRequest }: { candidates: CandidateList["clusters"]; mayRequest: boolean }) {
  const ready = candidates.filter((c) => c.served && !c.pending).map((c) => c.cluster);
  return (
    <p className="mt-3 text-sm" data-testid="candidate-count">
      {candidates.length.toLocaleString()} {candidates.length === 1 ? "cluster needs" : "clusters need"} an acknowledgement
      {ready.length ? `, ${ready.length.toLocaleString()} of them ready for one` : ""}.{" "}
      {mayRequest && ready.length > 1 ? (
        <a
          className="font-medium text-accent hover:underline"
          href={`/rollouts?${new URLSearchParams({ kind: "acknowledgement", clusters: ready.slice(0, 1000).join(",") })}`}
        >
          Request for {Math.min(ready.length, 1000).toLocaleString()} at once, in waves
        </a>
      ) : null}
    </p>
  );
}

function Decision({ ack, me }: { ack: Acknowledgement; me: Me }) {
  const queryClient = useQueryClient();
  const [comment, setComment] = useState("");
  const decide = useMutation({
    mutationFn: (decision: "approve" | "reject") => call(acknowledgementEndpoints[decision], { params: { id: ack.id }, body: { comment } }),
    onSuccess: () => {
      // The candidates are under the same key: a request or a decision changes them too.
      void queryClient.invalidateQueries({ queryKey: keys.acknowledgements });
    },
  });
  if (ack.status !== "pending" || !can(me, ["approver"])) return null;
  if (ack.requestedById === me.id)
    return <p className="text-xs text-muted">You requested this; someone else with the approver role decides it.</p>;
  // The server says whether the reader's approver grants cover this cluster.
  if (!ack.mayDecide) return <p className="text-xs text-muted">Its cluster is outside your approver scope.</p>;
  return (
    <div className="flex flex-col gap-2">
      <label htmlFor={`comment-${ack.id}`} className="text-xs font-medium">
        Comment
      </label>
      <TextInput id={`comment-${ack.id}`} value={comment} onChange={(e) => setComment(e.target.value)} />
      <div className="flex gap-2">
        <Button type="button" disabled={decide.isPending} onClick={() => decide.mutate("approve")}>
          {decide.isPending && decide.variables === "approve" ? "Approving…" : "Approve"}
        </Button>
        <Button type="button" variant="danger" disabled={decide.isPending} onClick={() => decide.mutate("reject")}>
          Reject
        </Button>
      </div>
      {decide.error ? <Alert tone="error">{decide.error.message}</Alert> : null}
    </div>
  );
}

function Requests({ me, initial }: { me: Me; initial: Seed<Acknowledgement[]> }) {
  const q = useSeededQuery({ ...queries.acknowledgements(), refetchInterval: 10_000 }, initial);
  return (
    <Card className="p-5">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 className="text-lg font-semibold">Requests</h2>
        <LastUpdated at={q.dataUpdatedAt} fetching={q.isFetching} />
      </div>
      {q.data.length === 0 ? <p className="mt-2 text-sm text-muted">No requests yet.</p> : null}
      <ul className="mt-3 flex flex-col gap-3">
        {q.data.map((a) => (
          <li
            key={a.id}
            data-request={a.id}
            data-status={a.status}
            className="grid gap-3 rounded-md border border-line p-3 text-sm md:grid-cols-[1fr_16rem]"
          >
            <div className="flex flex-col gap-1">
              <p>
                <span className={`mr-2 inline-flex rounded px-2 py-0.5 text-xs font-medium ${STATUS[a.status].className}`}>
                  {STATUS[a.status].label}
                </span>
                <strong>{a.cluster}</strong>: {valueOf(a)}
              </p>
              <p className="text-xs text-muted">
                Requested by {a.requestedBy} on {formatDate(a.requestedAt)}
                {a.status === "pending" ? `, expires ${formatDay(a.expiresAt)}` : ""}
                {a.decidedBy
                  ? ` · ${a.status === "rejected" ? "rejected" : "approved"} by ${a.decidedBy}${a.comment ? `: “${a.comment}”` : ""}`
                  : ""}
              </p>
              <p>
                <span className="font-medium">Evidence:</span> {a.evidence}
              </p>
              {a.machineSets.length ? <p className="text-xs">MachineSets confirmed: {a.machineSets.join(", ")}</p> : null}
              <p className={a.prediction.upgradeable ? "text-ok" : "text-danger"}>
                Predicted at {a.prediction.release ?? "its release"}: Upgradeable {a.prediction.upgradeable ? "True" : "False"}.{" "}
                {a.prediction.message}
              </p>
              {a.result ? (
                <p className={a.status === "failed" ? "text-danger" : ""} aria-label="Cluster's answer">
                  {a.result}
                </p>
              ) : null}
            </div>
            <Decision ack={a} me={me} />
          </li>
        ))}
      </ul>
    </Card>
  );
}

export function AcknowledgementsView({ me, requests }: { me: Me; requests: Seed<Acknowledgement[]> }) {
  return (
    <div className="flex flex-col gap-6">
      <Candidates me={me} />
      <Requests me={me} initial={requests} />
    </div>
  );
}
