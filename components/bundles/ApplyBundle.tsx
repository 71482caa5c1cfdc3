"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type ReactNode } from "react";
import type {
  ApplicationChanged,
  ApplyBundleRequest,
  ApplyRefusal,
  BundleUploaded,
  PrecheckResult,
  UploadedBundle,
  UploadRefusal,
} from "@/server/bundles/contract";
import { api, ApiError } from "../api";
import { keys, queries } from "../queries";
import { Alert, Button, Card, Field, Select } from "../ui";
import { PrecheckList } from "./PrecheckList";

const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GiB`;

function Step({ n, title, children, done }: { n: number; title: string; children: ReactNode; done?: boolean }) {
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
export function ApplyBundle() {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [uploaded, setUploaded] = useState<UploadedBundle | null>(null);
  const [refusal, setRefusal] = useState<{ message: string; digest: string | null; problems: string[] } | null>(null);
  const [cluster, setCluster] = useState("");
  const [precheck, setPrecheck] = useState<PrecheckResult | null>(null);
  const [confirmed, setConfirmed] = useState(false);
  /** Warnings that appeared after the technician read the prechecks (the apply was refused for them). */
  const [fresh, setFresh] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);

  const clusters = useQuery(queries.clusters());

  const upload = useMutation({
    mutationFn: (file: File) => {
      const form = new FormData();
      form.append("manifest", file);
      return api<BundleUploaded>("/api/v1/bundles", { method: "POST", body: form });
    },
    onMutate: () => {
      setUploaded(null);
      setRefusal(null);
      setPrecheck(null);
      setError(null);
    },
    onSuccess: ({ bundle }) => {
      setUploaded(bundle);
      void queryClient.invalidateQueries({ queryKey: keys.bundles });
    },
    onError: (e) => {
      const refused: UploadRefusal = e instanceof ApiError ? e.data : {};
      setRefusal({ message: e.message, digest: refused.digest ?? null, problems: refused.problems ?? [] });
    },
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
      api<ApplicationChanged>("/api/v1/bundle-applications", {
        method: "POST",
        body: { digest: uploaded!.digest, cluster, confirmedWarnings: confirmed ? shownWarnings : [] } satisfies ApplyBundleRequest,
      }),
    onSuccess: ({ application }) => {
      void queryClient.invalidateQueries({ queryKey: keys.applications });
      router.push(`/bundles/applications/${application.id}`);
    },
    onError: (e) => {
      setError(e.message);
      const refused: ApplyRefusal = e instanceof ApiError ? e.data : {};
      if (refused.checks && precheck) {
        const checks = refused.checks;
        setPrecheck({
          ...precheck,
          checks,
          canApply: !checks.some((c) => c.status === "fail"),
          needsConfirmation: checks.some((c) => c.status === "warn"),
        });
        // What is on screen changed: it must be read and confirmed again.
        setConfirmed(false);
        setFresh(refused.unconfirmed ?? []);
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
                <strong>Bundle for OpenShift {uploaded.releaseVersion}</strong>: {uploaded.imageCount} images, {gib(uploaded.totalBytes)}
                {uploaded.distinctBytes < uploaded.totalBytes
                  ? ` (${gib(uploaded.distinctBytes)} with the layers they share counted once, as the MCO counts them for disk space)`
                  : ""}
                .
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
