"use client";

import { formatDate } from "@/lib/format";
import Link from "next/link";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRef, useState, type FormEvent } from "react";
import { clusterAdminEndpoints, type OfflineImportResult } from "@/server/clusters/contract";
import { call } from "./api";
import { SKEW } from "./fleet/status";
import { keys } from "./queries";
import { Alert, Button, Card, Field, TextInput } from "./ui";

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** Imports an air-gapped site's object dumps as an offline cluster, or adds a newer capture to one. */
export function OfflineImport() {
  const queryClient = useQueryClient();
  const fileInput = useRef<HTMLInputElement>(null);
  const [name, setName] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [labels, setLabels] = useState("");
  const [capturedAt, setCapturedAt] = useState("");
  const [files, setFiles] = useState<File[]>([]);
  const [result, setResult] = useState<OfflineImportResult | null>(null);
  const [error, setError] = useState<string | null>(null);

  const upload = useMutation({
    mutationFn: (form: FormData) => call(clusterAdminEndpoints.importOffline, { body: form }),
    onSuccess: (r) => {
      setResult(r);
      setError(null);
      setFiles([]);
      if (fileInput.current) fileInput.current.value = "";
      void queryClient.invalidateQueries({ queryKey: keys.clusters });
      void queryClient.invalidateQueries({ queryKey: keys.fleet });
    },
    onError: (e) => {
      setResult(null);
      setError(e.message);
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    const form = new FormData();
    form.set("name", name);
    if (displayName) form.set("displayName", displayName);
    if (labels) form.set("labels", labels);
    if (capturedAt) {
      // datetime-local is the browser's local time; the server wants an instant.
      const at = new Date(capturedAt);
      if (Number.isNaN(at.getTime())) return setError("Capture time is not a valid date and time");
      form.set("capturedAt", at.toISOString());
    }
    for (const f of files) form.append("files", f, f.name);
    upload.mutate(form);
  }

  return (
    <Card className="p-5">
      <form onSubmit={submit} className="flex flex-col gap-4" aria-label="Import an offline cluster">
        <div>
          <h2 className="text-lg font-semibold">Import an offline cluster</h2>
          <p className="mt-1 text-sm text-muted">
            For a site Fleetskew cannot reach: upload its object dumps (<code>oc get … -o json</code> or <code>-o yaml</code>, at least the
            ClusterVersion, MachineSets, MachineConfigPools and the coreos-bootimages ConfigMap), as files or one .tar.gz. It is shown like
            the other clusters, marked offline with its capture time. Importing again under the same name adds a newer capture.
          </p>
        </div>
        <div className="grid gap-4 sm:grid-cols-2">
          <Field
            label="Name"
            htmlFor="import-name"
            hint="Lower-case letters, digits and dashes; an existing offline cluster's name adds a capture."
          >
            <TextInput id="import-name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={63} />
          </Field>
          <Field label="Display name" htmlFor="import-display-name">
            <TextInput id="import-display-name" value={displayName} onChange={(e) => setDisplayName(e.target.value)} maxLength={120} />
          </Field>
        </div>
        <div className="grid gap-4 sm:grid-cols-2">
          <Field
            label="Capture time"
            htmlFor="import-captured-at"
            hint="When the dumps were taken, in your time zone. Empty: the time of the upload."
          >
            <TextInput
              id="import-captured-at"
              type="datetime-local"
              step={1}
              value={capturedAt}
              onChange={(e) => setCapturedAt(e.target.value)}
            />
          </Field>
          <Field label="Labels" htmlFor="import-labels" hint="key=value, separated by commas, e.g. site=plant-3">
            <TextInput id="import-labels" value={labels} onChange={(e) => setLabels(e.target.value)} />
          </Field>
        </div>
        <Field
          label="Object dumps"
          htmlFor="import-files"
          hint="Several *.json, *.yaml or *.yml files, or one .tar.gz of them (folders inside are fine). Up to 32 MiB."
        >
          <input
            id="import-files"
            ref={fileInput}
            type="file"
            multiple
            accept=".json,.yaml,.yml,.tar.gz,.tgz,.tar,application/gzip,application/json"
            onChange={(e) => setFiles(Array.from(e.target.files ?? []))}
            className="text-sm"
          />
        </Field>

        {error ? <Alert tone="error">{error}</Alert> : null}
        {result ? (
          <Alert tone="ok">
            {result.created ? "Imported" : "Added a capture to"}{" "}
            <Link href={`/clusters/${encodeURIComponent(result.cluster)}`} className="font-medium underline">
              {result.cluster}
            </Link>
            : OpenShift {result.version ?? "of unknown version"}, boot-image skew{" "}
            {(SKEW[result.skewStatus] ?? SKEW.unknown).label.toLowerCase()}
            {result.oldestBootImage ? ` (oldest boot image ${result.oldestBootImage})` : ""}, captured {formatDate(result.capturedAt)}. Read{" "}
            {plural(result.counts.read, "object")} of {result.counts.objects} from {plural(result.counts.files, "file")}.
          </Alert>
        ) : null}
        {result && result.warnings.length ? (
          <div className="rounded-md border border-line p-3 text-sm" role="region" aria-label="Import warnings">
            <p className="font-medium">{plural(result.warnings.length, "warning")}</p>
            <ul className="mt-1 list-disc pl-5 text-muted">
              {result.warnings.map((w, i) => (
                <li key={i}>{w}</li>
              ))}
            </ul>
          </div>
        ) : null}
        <div>
          <Button type="submit" disabled={!name || files.length === 0 || upload.isPending}>
            {upload.isPending ? "Importing…" : "Import"}
          </Button>
        </div>
      </form>
    </Card>
  );
}
