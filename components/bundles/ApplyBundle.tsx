"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type ReactNode } from "react";
import {
  ApplyRefusalSchema,
  bundleEndpoints,
  UploadRefusalSchema,
  type ApplyRefusal,
  type PrecheckResult,
  type UploadedBundle,
  type UploadRefusal,
} from "@/server/bundles/contract";
import { ApiError, call } from "../api";
import { keys } from "../queries";
import { fleetEndpoints } from "@/server/fleet/contract";
import { Alert, Button, Card, Field, TextInput } from "../ui";
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

type Refusal = { message: string; digest: string | null; problems: string[] };

/** What a refused upload (422) or apply (409) says beside its message; nothing when the error is another. */
function uploadRefusal(e: Error): UploadRefusal {
  const parsed = e instanceof ApiError ? UploadRefusalSchema.safeParse(e.data) : null;
  return parsed?.success ? parsed.data : {};
}
function applyRefusal(e: Error): ApplyRefusal {
  const parsed = e instanceof ApiError ? ApplyRefusalSchema.safeParse(e.data) : null;
  return parsed?.success ? parsed.data : {};
}

/** A refused upload: why, and the digest an approver vets. */
function UploadRefused({ refusal }: { refusal: Refusal }) {
  return (
    <div className="flex flex-col gap-2">
      <Alert tone="error">{refusal.message}</Alert>
      {refusal.digest ? (
        <div className="rounded-md border border-line p-3 text-sm">
          <p className="font-medium">Digest of this file</p>
          <code aria-label="Refused digest" className="block break-all font-mono text-xs">
            {refusal.digest}
          </code>
          <p className="mt-1 text-xs text-muted">
            Send this digest to an approver. Once they vet it under <strong>Bundles → Vetted bundles</strong>, upload the same file again.
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
  );
}

/** The accepted bundle: its release, size and vetting. */
function UploadedSummary({ bundle: uploaded }: { bundle: UploadedBundle }) {
  return (
    <div role="status" className="rounded-md border border-ok/40 bg-ok/5 p-3 text-sm">
      <p>
        <strong>Bundle for OpenShift {uploaded.releaseVersion}</strong>: {uploaded.imageCount} images, {gib(uploaded.totalBytes)}
        {uploaded.distinctBytes < uploaded.totalBytes
          ? ` (${gib(uploaded.distinctBytes)} with the layers they share counted once, as the MCO counts them for disk space)`
          : ""}
        .
      </p>
      <p className="text-xs text-muted">
        Vetted by {uploaded.vetted.vettedBy}: “{uploaded.vetted.note}”. Digest <code className="break-all">sha256:{uploaded.digest}</code>
      </p>
    </div>
  );
}

/** Step 1: the manifest file, and what became of it. */
function UploadStep({
  onUpload,
  pending,
  refusal,
  uploaded,
}: {
  onUpload: (file: File) => void;
  pending: boolean;
  refusal: Refusal | null;
  uploaded: UploadedBundle | null;
}) {
  // The input is emptied after each upload (so the same file can be sent again): the name is kept here instead.
  const [chosen, setChosen] = useState<string | null>(null);
  return (
    <Step n={1} title="Upload the bundle manifest" done={!!uploaded}>
      <Field
        label="Bundle manifest (JSON file)"
        htmlFor="manifest"
        hint="The file handed over with the mirrored release, e.g. bundle-4.19.11.json; an approver vets its digest first (below)."
      >
        <input
          id="manifest"
          type="file"
          accept=".json,application/json"
          className="text-sm"
          onChange={(e) => {
            const file = e.target.files?.[0];
            if (file) {
              setChosen(file.name);
              onUpload(file);
            }
            e.target.value = "";
          }}
        />
        {chosen ? (
          <span className="text-xs text-muted" data-testid="chosen-manifest">
            {pending ? "Sending" : "Sent"} {chosen}; choose a file again to replace it.
          </span>
        ) : null}
      </Field>
      {pending ? <p className="text-sm text-muted">Checking the manifest…</p> : null}
      {refusal ? <UploadRefused refusal={refusal} /> : null}
      {uploaded ? <UploadedSummary bundle={uploaded} /> : null}
    </Step>
  );
}

/**
 * The cluster a bundle goes to, by name: typed, with the live clusters that match offered as it is
 * typed (an offline import cannot be written to). Many clusters at once are a rollout.
 */
function ClusterPicker({ value, onChange, disabled }: { value: string; onChange: (name: string) => void; disabled: boolean }) {
  const matches = useQuery({
    queryKey: ["clusters", { picker: value }],
    queryFn: () => call(fleetEndpoints.list, { query: { q: value || undefined, sort: "name", limit: 20 } }),
    enabled: !disabled,
    placeholderData: keepPreviousData,
  });
  const live = (matches.data?.clusters ?? []).filter((c) => !c.offline);
  return (
    <Field label="Cluster" htmlFor="bundle-cluster" hint="Type a name; for many clusters at once, plan a rollout">
      <TextInput
        id="bundle-cluster"
        list="bundle-cluster-names"
        autoComplete="off"
        value={value}
        onChange={(e) => onChange(e.target.value.trim())}
        disabled={disabled}
      />
      <datalist id="bundle-cluster-names">
        {live.map((c) => (
          <option key={c.name} value={c.name}>
            {c.version ?? ""}
          </option>
        ))}
      </datalist>
    </Field>
  );
}

/** Step 3: what still blocks, the confirmation of the warnings, and the button. */
function ApplyStep({
  precheck,
  confirmed,
  onConfirm,
  pending,
  onApply,
  error,
}: {
  precheck: PrecheckResult | null;
  confirmed: boolean;
  onConfirm: (confirmed: boolean) => void;
  pending: boolean;
  onApply: () => void;
  error: string | null;
}) {
  return (
    <Step n={3} title="Apply">
      {precheck && !precheck.canApply ? (
        <Alert tone="error">Something above blocks applying the bundle. Do what it says, then check the cluster again.</Alert>
      ) : null}
      {precheck?.canApply && precheck.needsConfirmation ? (
        <label className="flex items-start gap-2 text-sm">
          <input type="checkbox" className="mt-1" checked={confirmed} onChange={(e) => onConfirm(e.target.checked)} />
          <span>I have read the warnings above and want to apply the bundle anyway.</span>
        </label>
      ) : null}
      <div>
        <Button type="button" disabled={!precheck?.canApply || (precheck.needsConfirmation && !confirmed) || pending} onClick={onApply}>
          {pending ? "Applying…" : "Apply bundle"}
        </Button>
      </div>
      {error ? <Alert tone="error">{error}</Alert> : null}
    </Step>
  );
}

/** Upload → check → apply, the technician's path; each step says what to do next. */
export function ApplyBundle() {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [uploaded, setUploaded] = useState<UploadedBundle | null>(null);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [cluster, setCluster] = useState("");
  const [precheck, setPrecheck] = useState<PrecheckResult | null>(null);
  const [confirmed, setConfirmed] = useState(false);
  /** Warnings that appeared after the technician read the prechecks (the apply was refused for them). */
  const [fresh, setFresh] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);

  const upload = useMutation({
    mutationFn: (file: File) => {
      const form = new FormData();
      form.append("manifest", file);
      return call(bundleEndpoints.upload, { body: form });
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
      const refused = uploadRefusal(e);
      setRefusal({ message: e.message, digest: refused.digest ?? null, problems: refused.problems ?? [] });
    },
  });

  const check = useMutation({
    mutationFn: () => call(bundleEndpoints.precheck, { params: { digest: uploaded!.digest }, query: { cluster } }),
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
      call(bundleEndpoints.apply, { body: { digest: uploaded!.digest, cluster, confirmedWarnings: confirmed ? shownWarnings : [] } }),
    onSuccess: ({ application }) => {
      void queryClient.invalidateQueries({ queryKey: keys.applications });
      router.push(`/bundles/applications/${application.id}`);
    },
    onError: (e) => {
      setError(e.message);
      const refused = applyRefusal(e);
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

  return (
    <Card className="p-5">
      <h2 className="text-lg font-semibold">Apply a bundle</h2>
      <p className="text-sm text-muted">
        A bundle lists the images a release needs. Fleetskew pins them on every node so the upgrade needs no registry. It never moves the
        images itself: they come from the site&apos;s mirror registry.
      </p>
      <ol className="mt-4 flex flex-col gap-5">
        <UploadStep onUpload={(file) => upload.mutate(file)} pending={upload.isPending} refusal={refusal} uploaded={uploaded} />

        <Step n={2} title="Check the cluster" done={!!precheck && precheck.canApply}>
          <div className="flex flex-wrap items-end gap-2">
            <ClusterPicker value={cluster} onChange={(name) => (setCluster(name), setPrecheck(null))} disabled={!uploaded} />
            <Button type="button" variant="secondary" disabled={!uploaded || !cluster || check.isPending} onClick={() => check.mutate()}>
              {check.isPending ? "Checking…" : "Check the cluster"}
            </Button>
          </div>
          {!uploaded ? <p className="text-xs text-muted">Upload the manifest first.</p> : null}
          {precheck ? <PrecheckList result={precheck} fresh={fresh} /> : null}
        </Step>

        <ApplyStep
          precheck={precheck}
          confirmed={confirmed}
          onConfirm={setConfirmed}
          pending={apply.isPending}
          onApply={() => apply.mutate()}
          error={error}
        />
      </ol>
    </Card>
  );
}
