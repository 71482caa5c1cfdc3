"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type ChangeEvent, type FormEvent } from "react";
import {
  clusterAdminEndpoints,
  type ConnectionReport,
  type CredentialSourceRequest,
  type KubeconfigContext,
  type RegisterClusterRequest,
} from "@/server/clusters/contract";
import { call } from "./api";
import { ConnectionReportView } from "./ConnectionReportView";
import { keys } from "./queries";
import { Alert, Button, Card, Field, Select, TextInput } from "./ui";

const textarea = "min-h-32 rounded-md border border-line bg-surface px-3 py-2 font-mono text-xs text-ink";

type Mode = "kubeconfig" | "token";

export function ClusterRegistration() {
  const queryClient = useQueryClient();
  const [mode, setMode] = useState<Mode>("kubeconfig");
  const [kubeconfig, setKubeconfig] = useState("");
  const [contexts, setContexts] = useState<KubeconfigContext[]>([]);
  const [context, setContext] = useState("");
  const [apiUrl, setApiUrl] = useState("");
  const [token, setToken] = useState("");
  const [caBundle, setCaBundle] = useState("");
  const [insecure, setInsecure] = useState(false);
  const [name, setName] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [labels, setLabels] = useState("");
  const [report, setReport] = useState<ConnectionReport | null>(null);
  const [message, setMessage] = useState<{ tone: "ok" | "error"; text: string } | null>(null);

  const readContexts = useMutation({
    mutationFn: (text: string) => call(clusterAdminEndpoints.kubeconfigContexts, { body: { kubeconfig: text } }),
    onSuccess: ({ contexts }) => {
      setContexts(contexts);
      const chosen = contexts.find((c) => c.current) ?? contexts[0];
      setContext(chosen?.name ?? "");
      if (!name && chosen)
        setName(
          chosen.name
            .toLowerCase()
            .replace(/[^a-z0-9-]/g, "-")
            .slice(0, 63),
        );
      setMessage(null);
    },
    onError: (e) => {
      setContexts([]);
      setMessage({ tone: "error", text: e.message });
    },
  });

  const source = (): CredentialSourceRequest =>
    mode === "kubeconfig"
      ? { type: "kubeconfig", kubeconfig, context }
      : { type: "token", apiUrl, token, caBundle: caBundle || undefined, insecureSkipTlsVerify: insecure };

  const test = useMutation({
    mutationFn: () => call(clusterAdminEndpoints.testCredentials, { body: { source: source() } }),
    onSuccess: ({ report }) => {
      setReport(report);
      setMessage(null);
    },
    onError: (e) => setMessage({ tone: "error", text: e.message }),
  });

  const register = useMutation({
    mutationFn: (body: RegisterClusterRequest) => call(clusterAdminEndpoints.register, { body }),
    onSuccess: ({ cluster, report }) => {
      setReport(report);
      setMessage({
        tone: "ok",
        text: `Registered ${cluster.name}.${cluster.lastContactStatus === "ok" ? "" : " It could not be reached just now; Fleetskew will keep trying."}`,
      });
      void queryClient.invalidateQueries({ queryKey: keys.clusters });
      void queryClient.invalidateQueries({ queryKey: keys.fleet });
    },
    onError: (e) => setMessage({ tone: "error", text: e.message }),
  });

  async function onFile(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    if (!file) return;
    const text = await file.text();
    setKubeconfig(text);
    readContexts.mutate(text);
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    // The server reads "key=value, key=value" and says which part is not.
    register.mutate({ name, displayName: displayName || undefined, labels, source: source() });
  }

  const busy = test.isPending || register.isPending;
  const ready = mode === "kubeconfig" ? Boolean(kubeconfig && context) : Boolean(apiUrl && token);

  return (
    <Card className="p-5">
      <form onSubmit={submit} className="flex flex-col gap-4" aria-label="Register a cluster">
        <h2 className="text-lg font-semibold">Register a cluster</h2>
        <ModeChoice mode={mode} onMode={setMode} />

        {mode === "kubeconfig" ? (
          <KubeconfigFields
            kubeconfig={kubeconfig}
            onKubeconfig={setKubeconfig}
            onFile={onFile}
            onRead={() => kubeconfig.trim() && readContexts.mutate(kubeconfig)}
            contexts={contexts}
            context={context}
            onContext={setContext}
          />
        ) : (
          <TokenFields
            apiUrl={apiUrl}
            onApiUrl={setApiUrl}
            token={token}
            onToken={setToken}
            caBundle={caBundle}
            onCaBundle={setCaBundle}
            insecure={insecure}
            onInsecure={setInsecure}
          />
        )}

        <NamingFields
          name={name}
          onName={setName}
          displayName={displayName}
          onDisplayName={setDisplayName}
          labels={labels}
          onLabels={setLabels}
        />

        {message ? <Alert tone={message.tone}>{message.text}</Alert> : null}
        <div className="flex flex-wrap gap-2">
          <Button type="button" variant="secondary" disabled={!ready || busy} onClick={() => test.mutate()}>
            {test.isPending ? "Testing…" : "Test connection"}
          </Button>
          <Button type="submit" disabled={!ready || !name || busy}>
            {register.isPending ? "Registering…" : "Register cluster"}
          </Button>
        </div>
        {report ? <ConnectionReportView report={report} /> : null}
      </form>
    </Card>
  );
}

/** How to reach the cluster: a kubeconfig's context, or an API URL and token. */
function ModeChoice({ mode, onMode }: { mode: Mode; onMode: (mode: Mode) => void }) {
  return (
    <fieldset className="flex gap-4 text-sm">
      <legend className="sr-only">How to connect</legend>
      {(["kubeconfig", "token"] as const).map((m) => (
        <label key={m} className="flex items-center gap-2">
          <input type="radio" name="mode" value={m} checked={mode === m} onChange={() => onMode(m)} />
          {m === "kubeconfig" ? "From a kubeconfig" : "API URL and token"}
        </label>
      ))}
    </fieldset>
  );
}

/** What the cluster is called in Fleetskew, and its labels. */
function NamingFields({
  name,
  onName,
  displayName,
  onDisplayName,
  labels,
  onLabels,
}: {
  name: string;
  onName: (name: string) => void;
  displayName: string;
  onDisplayName: (displayName: string) => void;
  labels: string;
  onLabels: (labels: string) => void;
}) {
  return (
    <>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label="Name" htmlFor="cluster-name" hint="Lower-case letters, digits and dashes; cannot be changed later.">
          <TextInput id="cluster-name" value={name} onChange={(e) => onName(e.target.value)} required maxLength={63} />
        </Field>
        <Field label="Display name" htmlFor="cluster-display-name">
          <TextInput id="cluster-display-name" value={displayName} onChange={(e) => onDisplayName(e.target.value)} maxLength={120} />
        </Field>
      </div>
      <Field label="Labels" htmlFor="cluster-labels" hint="key=value, separated by commas, e.g. env=prod, site=plant-3">
        <TextInput id="cluster-labels" value={labels} onChange={(e) => onLabels(e.target.value)} />
      </Field>
    </>
  );
}

/** A kubeconfig, pasted or uploaded, and the context to register from it. */
function KubeconfigFields({
  kubeconfig,
  onKubeconfig,
  onFile,
  onRead,
  contexts,
  context,
  onContext,
}: {
  kubeconfig: string;
  onKubeconfig: (text: string) => void;
  onFile: (event: ChangeEvent<HTMLInputElement>) => Promise<void>;
  onRead: () => void;
  contexts: KubeconfigContext[];
  context: string;
  onContext: (name: string) => void;
}) {
  return (
    <>
      <Field
        label="Kubeconfig file"
        htmlFor="kubeconfig-file"
        hint="Or paste it below. Tokens and certificates must be inline; exec plugins are not supported."
      >
        <input
          id="kubeconfig-file"
          type="file"
          accept=".yaml,.yml,.json,.kubeconfig,text/*"
          onChange={(e) => void onFile(e)}
          className="text-sm"
        />
      </Field>
      <Field label="Kubeconfig" htmlFor="kubeconfig-text">
        <textarea
          id="kubeconfig-text"
          className={textarea}
          value={kubeconfig}
          spellCheck={false}
          onChange={(e) => onKubeconfig(e.target.value)}
          onBlur={onRead}
        />
      </Field>
      <Field label="Context" htmlFor="kubeconfig-context" hint={contexts.find((c) => c.name === context)?.server}>
        <Select id="kubeconfig-context" value={context} onChange={(e) => onContext(e.target.value)} disabled={contexts.length === 0}>
          {contexts.length === 0 ? <option value="">Load a kubeconfig first</option> : null}
          {contexts.map((c) => (
            <option key={c.name} value={c.name}>
              {c.name}
            </option>
          ))}
        </Select>
      </Field>
    </>
  );
}

/** An API URL and bearer token, with the CA bundle that verifies the server. */
function TokenFields({
  apiUrl,
  onApiUrl,
  token,
  onToken,
  caBundle,
  onCaBundle,
  insecure,
  onInsecure,
}: {
  apiUrl: string;
  onApiUrl: (url: string) => void;
  token: string;
  onToken: (token: string) => void;
  caBundle: string;
  onCaBundle: (pem: string) => void;
  insecure: boolean;
  onInsecure: (insecure: boolean) => void;
}) {
  return (
    <>
      <Field label="API URL" htmlFor="api-url" hint="For example https://api.cluster.example.com:6443">
        <TextInput
          id="api-url"
          value={apiUrl}
          onChange={(e) => onApiUrl(e.target.value)}
          placeholder="https://api.cluster.example.com:6443"
        />
      </Field>
      <Field label="Bearer token" htmlFor="api-token" hint="A service account token with the read-only role in docs/rbac.md.">
        <TextInput id="api-token" type="password" autoComplete="off" value={token} onChange={(e) => onToken(e.target.value)} />
      </Field>
      <Field label="CA bundle (PEM, optional)" htmlFor="api-ca">
        <textarea id="api-ca" className={textarea} value={caBundle} spellCheck={false} onChange={(e) => onCaBundle(e.target.value)} />
      </Field>
      <label className="flex items-start gap-2 text-sm">
        <input type="checkbox" checked={insecure} onChange={(e) => onInsecure(e.target.checked)} className="mt-1" />
        <span>
          Skip TLS certificate verification
          {insecure ? (
            <span className="block text-danger">
              Insecure: anyone between Fleetskew and the cluster could read the token. Prefer adding the CA bundle.
            </span>
          ) : null}
        </span>
      </label>
    </>
  );
}
