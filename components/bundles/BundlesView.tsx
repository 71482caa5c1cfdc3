"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { api, ApiError } from "../api";
import type { Seed } from "../seed";
import { useSeededQuery } from "../seededQuery";
import { Alert, Button, Card, Field, Select, TextInput } from "../ui";
import { PrecheckList } from "./PrecheckList";
import { can, STATE_WORDS, type Application, type Bundle, type Me, type PrecheckResult, type VettedBundle } from "./types";

const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
const when = (iso: string) => new Date(iso).toLocaleString();

function Step({ n, title, children, done }: { n: number; title: string; children: React.ReactNode; done?: boolean }) {
  return (
    <li className="flex gap-3">
      <span
        aria-hidden
        className={`mt-0.5 flex h-6 w-6 shrink-0 items-center justify-center rounded-full text-xs font-semibold ${done ? "bg-ok text-white" : "bg-accent text-accent-ink"}`}
      >
        {done ? "✓" : n}
      </span>
      <div className="flex min-w-0 flex-1 flex-col gap-2">
        <h3 className="font-semibold">{title}</h3>
        {children}
      </div>
    </li>
  );
}

/** Upload → check → apply, the technician's path; each step says what to do next. */
function ApplyBundle() {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [uploaded, setUploaded] = useState<Bundle | null>(null);
  const [refusal, setRefusal] = useState<{ message: string; digest: string | null; problems: string[] } | null>(null);
  const [cluster, setCluster] = useState("");
  const [precheck, setPrecheck] = useState<PrecheckResult | null>(null);
  const [confirmed, setConfirmed] = useState(false);
  /** Warnings that appeared after the technician read the prechecks (the apply was refused for them). */
  const [fresh, setFresh] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);

  const clusters = useQuery({
    queryKey: ["clusters"],
    queryFn: () =>
      api<{ clusters: { name: string; offline: boolean; version: string | null }[] }>("/api/v1/clusters").then((r) => r.clusters),
  });

  const upload = useMutation({
    mutationFn: (file: File) => {
      const form = new FormData();
      form.append("manifest", file);
      return api<{ bundle: Bundle }>("/api/v1/bundles", { method: "POST", body: form });
    },
    onMutate: () => {
      setUploaded(null);
      setRefusal(null);
      setPrecheck(null);
      setError(null);
    },
    onSuccess: ({ bundle }) => {
      setUploaded(bundle);
      void queryClient.invalidateQueries({ queryKey: ["bundles"] });
    },
    onError: (e) =>
      setRefusal({
        message: e.message,
        digest: e instanceof ApiError && typeof e.data.digest === "string" ? e.data.digest : null,
        problems: e instanceof ApiError && Array.isArray(e.data.problems) ? (e.data.problems as string[]) : [],
      }),
  });

  const check = useMutation({
    mutationFn: () => api<PrecheckResult>(`/api/v1/bundles/${uploaded!.digest}/precheck?cluster=${encodeURIComponent(cluster)}`),
    onMutate: () => {
      setPrecheck(null);
      setConfirmed(false);
      setFresh([]);
      setError(null);
    },
    onSuccess: setPrecheck,
    onError: (e) => setError(e.message),
  });

  // The confirmation covers the warnings on screen, by their keys: a warning that appears later is not confirmed.
  const shownWarnings = (precheck?.checks ?? []).filter((c) => c.status === "warn").map((c) => c.key);
  const apply = useMutation({
    mutationFn: () =>
      api<{ application: Application }>("/api/v1/bundle-applications", {
        method: "POST",
        body: { digest: uploaded!.digest, cluster, confirmedWarnings: confirmed ? shownWarnings : [] },
      }),
    onSuccess: ({ application }) => {
      void queryClient.invalidateQueries({ queryKey: ["applications"] });
      router.push(`/bundles/applications/${application.id}`);
    },
    onError: (e) => {
      setError(e.message);
      if (e instanceof ApiError && Array.isArray(e.data.checks) && precheck) {
        const checks = e.data.checks as PrecheckResult["checks"];
        setPrecheck({
          ...precheck,
          checks,
          canApply: !checks.some((c) => c.status === "fail"),
          needsConfirmation: checks.some((c) => c.status === "warn"),
        });
        // What is on screen changed: it must be read and confirmed again.
        setConfirmed(false);
        setFresh(Array.isArray(e.data.unconfirmed) ? (e.data.unconfirmed as string[]) : []);
      }
    },
  });

  const live = (clusters.data ?? []).filter((c) => !c.offline);
  return (
    <Card className="p-5">
      <h2 className="text-lg font-semibold">Apply a bundle</h2>
      <p className="text-sm text-muted">
        A bundle lists the images a release needs. Fleetskew pins them on every node so the upgrade needs no registry. It never moves the
        images itself: they come from the site&apos;s mirror registry.
      </p>
      <ol className="mt-4 flex flex-col gap-5">
        <Step n={1} title="Upload the bundle manifest" done={!!uploaded}>
          <Field
            label="Bundle manifest (JSON file)"
            htmlFor="manifest"
            hint="The file you were given with the bundle, e.g. bundle-4.19.11.json."
          >
            <input
              id="manifest"
              type="file"
              accept=".json,application/json"
              className="text-sm"
              onChange={(e) => {
                const file = e.target.files?.[0];
                if (file) upload.mutate(file);
                e.target.value = "";
              }}
            />
          </Field>
          {upload.isPending ? <p className="text-sm text-muted">Checking the manifest…</p> : null}
          {refusal ? (
            <div className="flex flex-col gap-2">
              <Alert tone="error">{refusal.message}</Alert>
              {refusal.digest ? (
                <div className="rounded-md border border-line p-3 text-sm">
                  <p className="font-medium">Digest of this file</p>
                  <code aria-label="Refused digest" className="block break-all font-mono text-xs">
                    {refusal.digest}
                  </code>
                  <p className="mt-1 text-xs text-muted">
                    Send this digest to an approver. Once they vet it under <strong>Bundles → Vetted bundles</strong>, upload the same file
                    again.
                  </p>
                </div>
              ) : null}
              {refusal.problems.length ? (
                <ul className="list-disc pl-5 text-sm" aria-label="Problems in the manifest">
                  {refusal.problems.map((p) => (
                    <li key={p}>{p}</li>
                  ))}
                </ul>
              ) : null}
            </div>
          ) : null}
          {uploaded ? (
            <div role="status" className="rounded-md border border-ok/40 bg-ok/5 p-3 text-sm">
              <p>
                <strong>Bundle for OpenShift {uploaded.releaseVersion}</strong>: {uploaded.imageCount} images, {gib(uploaded.totalBytes)}.
              </p>
              <p className="text-xs text-muted">
                Vetted by {uploaded.vetted?.vettedBy}: “{uploaded.vetted?.note}”. Digest{" "}
                <code className="break-all">sha256:{uploaded.digest}</code>
              </p>
            </div>
          ) : null}
        </Step>

        <Step n={2} title="Check the cluster" done={!!precheck && precheck.canApply}>
          <div className="flex flex-wrap items-end gap-2">
            <Field label="Cluster" htmlFor="bundle-cluster">
              <Select
                id="bundle-cluster"
                value={cluster}
                onChange={(e) => (setCluster(e.target.value), setPrecheck(null))}
                disabled={!uploaded}
              >
                <option value="">Choose a cluster</option>
                {live.map((c) => (
                  <option key={c.name} value={c.name}>
                    {c.name}
                    {c.version ? ` (${c.version})` : ""}
                  </option>
                ))}
              </Select>
            </Field>
            <Button type="button" variant="secondary" disabled={!uploaded || !cluster || check.isPending} onClick={() => check.mutate()}>
              {check.isPending ? "Checking…" : "Check the cluster"}
            </Button>
          </div>
          {!uploaded ? <p className="text-xs text-muted">Upload the manifest first.</p> : null}
          {precheck ? <PrecheckList result={precheck} fresh={fresh} /> : null}
        </Step>

        <Step n={3} title="Apply">
          {precheck && !precheck.canApply ? (
            <Alert tone="error">Something above blocks applying the bundle. Do what it says, then check the cluster again.</Alert>
          ) : null}
          {precheck?.canApply && precheck.needsConfirmation ? (
            <label className="flex items-start gap-2 text-sm">
              <input type="checkbox" className="mt-1" checked={confirmed} onChange={(e) => setConfirmed(e.target.checked)} />
              <span>I have read the warnings above and want to apply the bundle anyway.</span>
            </label>
          ) : null}
          <div>
            <Button
              type="button"
              disabled={!precheck?.canApply || (precheck.needsConfirmation && !confirmed) || apply.isPending}
              onClick={() => apply.mutate()}
            >
              {apply.isPending ? "Applying…" : "Apply bundle"}
            </Button>
          </div>
          {error ? <Alert tone="error">{error}</Alert> : null}
        </Step>
      </ol>
    </Card>
  );
}

function VetBundle() {
  const queryClient = useQueryClient();
  const [digest, setDigest] = useState("");
  const [note, setNote] = useState("");
  const [message, setMessage] = useState<{ tone: "ok" | "error"; text: string } | null>(null);
  const vet = useMutation({
    mutationFn: () => api<{ vetted: VettedBundle }>("/api/v1/bundles/vetted", { method: "POST", body: { digest, note } }),
    onSuccess: ({ vetted }) => {
      setMessage({ tone: "ok", text: `Vetted sha256:${vetted.digest}. Technicians can upload this manifest now.` });
      setDigest("");
      setNote("");
      void queryClient.invalidateQueries({ queryKey: ["vetted"] });
    },
    onError: (e) => setMessage({ tone: "error", text: e.message }),
  });
  return (
    <form
      aria-label="Vet a bundle"
      className="flex flex-col gap-3"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        vet.mutate();
      }}
    >
      <Field label="Digest" htmlFor="vet-digest" hint="sha256 of the manifest file, as sha256sum prints it.">
        <TextInput
          id="vet-digest"
          value={digest}
          onChange={(e) => setDigest(e.target.value)}
          className="font-mono"
          placeholder="sha256:…"
        />
      </Field>
      <Field label="Why it is trusted" htmlFor="vet-note" hint="e.g. where it was built and checked, the change ticket.">
        <TextInput id="vet-note" value={note} onChange={(e) => setNote(e.target.value)} />
      </Field>
      <div>
        <Button type="submit" disabled={vet.isPending}>
          Vet bundle
        </Button>
      </div>
      {message ? <Alert tone={message.tone}>{message.text}</Alert> : null}
    </form>
  );
}

function Applications({ initial }: { initial: Seed<Application[]> }) {
  const applications = useSeededQuery(
    {
      queryKey: ["applications"],
      queryFn: () => api<{ applications: Application[] }>("/api/v1/bundle-applications").then((r) => r.applications),
      refetchInterval: 10_000,
    },
    initial,
  );
  const rows = applications.data;
  return (
    <Card className="overflow-x-auto">
      <h2 className="px-5 pt-4 text-lg font-semibold">Applications</h2>
      {rows.length === 0 ? (
        <p className="px-5 pb-5 pt-2 text-sm text-muted">No bundle has been applied yet.</p>
      ) : (
        <table className="mt-2 w-full text-left text-sm">
          <caption className="sr-only">Bundle applications</caption>
          <thead className="border-b border-line text-muted">
            <tr>
              {["Cluster", "Release", "State", "Applied by", "When", ""].map((h) => (
                <th key={h} scope="col" className="px-5 py-2 font-medium">
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((a) => (
              <tr key={a.id} className="border-b border-line last:border-0">
                <th scope="row" className="px-5 py-2 font-medium">
                  {a.cluster}
                </th>
                <td className="px-5 py-2">{a.releaseVersion}</td>
                <td className="px-5 py-2">
                  {STATE_WORDS[a.state]}
                  {a.lastError ? <span className="block text-xs text-danger">{a.lastError}</span> : null}
                </td>
                <td className="px-5 py-2">{a.createdBy}</td>
                <td className="px-5 py-2 text-xs">{when(a.createdAt)}</td>
                <td className="px-5 py-2">
                  <Link className="font-medium text-accent hover:underline" href={`/bundles/applications/${a.id}`}>
                    Follow
                  </Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Card>
  );
}

function VettedList({ me }: { me: Me }) {
  const vetted = useQuery({
    queryKey: ["vetted"],
    queryFn: () => api<{ vetted: VettedBundle[] }>("/api/v1/bundles/vetted").then((r) => r.vetted),
    enabled: can(me, ["technician", "approver"]),
  });
  return (
    <Card className="p-5">
      <h2 className="text-lg font-semibold">Vetted bundles</h2>
      <p className="text-sm text-muted">
        Only a manifest whose digest is listed here can be uploaded.{" "}
        {can(me, ["approver"]) ? "Vet one by its digest." : "Approvers vet bundles."}
      </p>
      <div className="mt-4 grid gap-6 lg:grid-cols-2">
        {can(me, ["approver"]) ? <VetBundle /> : null}
        <ul className="flex flex-col gap-2 text-sm" aria-label="Vetted digests">
          {(vetted.data ?? []).length === 0 ? <li className="text-muted">None yet.</li> : null}
          {(vetted.data ?? []).map((v) => (
            <li key={v.digest} className="rounded-md border border-line p-2">
              <code className="block break-all font-mono text-xs">sha256:{v.digest}</code>
              <span className="text-xs text-muted">
                {v.vettedBy}, {when(v.vettedAt)}: {v.note}
              </span>
            </li>
          ))}
        </ul>
      </div>
    </Card>
  );
}

export function BundlesView({ me, applications }: { me: Me; applications: Seed<Application[]> }) {
  return (
    <div className="flex flex-col gap-6">
      {can(me, ["technician"]) ? <ApplyBundle /> : null}
      <Applications initial={applications} />
      {can(me, ["technician", "approver"]) ? <VettedList me={me} /> : null}
    </div>
  );
}
