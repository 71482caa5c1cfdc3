"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { hubEndpoints, type RegisterHubRequest } from "@/server/hubs/contract";
import { call } from "../api";
import { Alert, Button, Card, Field, TextInput } from "../ui";

const textarea = "min-h-24 rounded-md border border-line bg-surface px-3 py-2 font-mono text-xs text-ink";

const EMPTY: RegisterHubRequest = {
  name: "",
  apiUrl: "",
  ca: "",
  readerToken: "",
  proxyUrl: "",
  proxyCa: "",
  access: "auto",
  proxyToken: "",
  proxyImpersonatedUser: "cluster:hub:system:serviceaccount:fleetskew:fleetskew-hub-proxy",
  concurrency: 20,
};

type Access = NonNullable<RegisterHubRequest["access"]>;
const ACCESS: { value: Access; label: string; hint: string }[] = [
  {
    value: "auto",
    label: "Decide from the hub's version",
    hint: "Impersonation on MCE 2.9 (ACM 2.14) and later when a proxy token is given; a ManagedServiceAccount per cluster otherwise.",
  },
  {
    value: "impersonation",
    label: "Impersonate a proxy service account",
    hint: "MCE 2.9 and later: one hub service account with no hub rights, carried to every cluster by the cluster-proxy.",
  },
  {
    value: "managed-service-account",
    label: "A ManagedServiceAccount per cluster",
    hint: "Older hubs: Fleetskew creates one on each cluster and reads its token; the reader also needs to create ManagedServiceAccounts and read Secrets.",
  },
];

/** Reads a PEM file chosen in the form into a field. */
function PemFile({ label, onText }: { label: string; onText: (text: string) => void }) {
  return (
    <input
      type="file"
      aria-label={label}
      accept=".pem,.crt,.txt"
      className="text-xs"
      onChange={(e) => void e.target.files?.[0]?.text().then(onText)}
    />
  );
}

/** Registers an ACM hub: what it needs, with where each value comes from on the hub. */
export function HubRegistration({ onRegistered }: { onRegistered: (name: string) => void }) {
  const queryClient = useQueryClient();
  const [form, setForm] = useState<RegisterHubRequest>(EMPTY);
  const set = (patch: Partial<RegisterHubRequest>) => setForm((f) => ({ ...f, ...patch }));
  const register = useMutation({
    mutationFn: (body: RegisterHubRequest) => call(hubEndpoints.register, { body }),
    onSuccess: (r) => {
      setForm(EMPTY);
      void queryClient.invalidateQueries({ queryKey: ["hubs"] });
      onRegistered(r.hub.name);
    },
  });
  const access = form.access ?? "auto";
  // Impersonation needs the proxy's token; "auto" uses it when given.
  const wantsProxyToken = access !== "managed-service-account";
  function submit(event: FormEvent) {
    event.preventDefault();
    const optional = (text: string | undefined) => (text?.trim() ? text : undefined);
    register.mutate({
      ...form,
      proxyCa: optional(form.proxyCa),
      proxyToken: wantsProxyToken ? optional(form.proxyToken) : undefined,
      proxyImpersonatedUser: wantsProxyToken ? optional(form.proxyImpersonatedUser) : undefined,
    });
  }
  return (
    <Card className="p-4">
      <form onSubmit={submit} className="flex flex-col gap-4" aria-label="Register an ACM hub">
        <div>
          <h2 className="font-semibold">Register an ACM hub</h2>
          <p className="text-sm text-muted">
            Fleetskew lists the hub&apos;s managed clusters, gives itself read access (and the writes bundles and acknowledgements need) on
            each through one ClusterPermission, and reaches them through the hub&apos;s cluster-proxy. No kubeconfig per cluster. What to
            create on the hub first is in docs/acm.md.
          </p>
        </div>
        <div className="grid gap-4 md:grid-cols-2">
          <Field
            label="Hub name"
            htmlFor="hub-name"
            hint="How Fleetskew names this hub; its clusters are labelled fleetskew.io/hub=<name>."
          >
            <TextInput id="hub-name" value={form.name} onChange={(e) => set({ name: e.target.value })} placeholder="hub-east" required />
          </Field>
          <Field label="Hub API URL" htmlFor="hub-api" hint="oc whoami --show-server, on the hub.">
            <TextInput
              id="hub-api"
              value={form.apiUrl}
              onChange={(e) => set({ apiUrl: e.target.value })}
              placeholder="https://api.hub.example.com:6443"
              required
            />
          </Field>
        </div>
        <Field label="Hub CA (PEM)" htmlFor="hub-ca" hint="The CA that signed the hub API's certificate.">
          <textarea id="hub-ca" className={textarea} value={form.ca} onChange={(e) => set({ ca: e.target.value })} required />
          <PemFile label="Hub CA file" onText={(ca) => set({ ca })} />
        </Field>
        <Field
          label="Reader token"
          htmlFor="hub-reader"
          hint="oc create token fleetskew-hub-reader -n fleetskew --duration=8760h: lists managed clusters, creates ClusterPermissions."
        >
          <TextInput
            id="hub-reader"
            type="password"
            autoComplete="off"
            value={form.readerToken}
            onChange={(e) => set({ readerToken: e.target.value })}
            required
          />
        </Field>
        <div className="grid gap-4 md:grid-cols-2">
          <Field
            label="Cluster-proxy URL"
            htmlFor="hub-proxy"
            hint="https://cluster-proxy-addon-user.<MCE namespace>.svc:9092, or the Route in front of it."
          >
            <TextInput id="hub-proxy" value={form.proxyUrl} onChange={(e) => set({ proxyUrl: e.target.value })} required />
          </Field>
          <Field
            label="Clusters swept at once"
            htmlFor="hub-concurrency"
            hint="At most this many of the hub's clusters are read at the same time."
          >
            <TextInput
              id="hub-concurrency"
              type="number"
              min={1}
              max={500}
              value={String(form.concurrency ?? 20)}
              onChange={(e) => set({ concurrency: Number(e.target.value) })}
            />
          </Field>
        </div>
        <Field
          label="Cluster-proxy CA (PEM)"
          htmlFor="hub-proxy-ca"
          hint="Leave empty when the hub's CA also signed the proxy's certificate; in-cluster it is the service CA."
        >
          <textarea id="hub-proxy-ca" className={textarea} value={form.proxyCa ?? ""} onChange={(e) => set({ proxyCa: e.target.value })} />
          <PemFile label="Cluster-proxy CA file" onText={(proxyCa) => set({ proxyCa })} />
        </Field>
        <fieldset className="flex flex-col gap-2 text-sm">
          <legend className="mb-1 font-medium">How Fleetskew reaches each cluster through the proxy</legend>
          {ACCESS.map((a) => (
            <div key={a.value} className="flex items-start gap-2">
              <input
                type="radio"
                id={`hub-access-${a.value}`}
                name="access"
                value={a.value}
                checked={access === a.value}
                onChange={() => {
                  set({ access: a.value });
                  register.reset(); // an answer about the other choice no longer applies
                }}
                aria-describedby={`hub-access-${a.value}-hint`}
                className="mt-1"
              />
              <div>
                <label htmlFor={`hub-access-${a.value}`}>{a.label}</label>
                <p id={`hub-access-${a.value}-hint`} className="text-xs text-muted">
                  {a.hint}
                </p>
              </div>
            </div>
          ))}
        </fieldset>
        {wantsProxyToken ? (
          <div className="grid gap-4 md:grid-cols-2">
            <Field
              label="Proxy token"
              htmlFor="hub-proxy-token"
              hint={
                access === "auto"
                  ? "Optional: a token of the service account with no hub rights whose identity the proxy carries to each cluster."
                  : "A token of the service account with no hub rights whose identity the proxy carries to each cluster."
              }
            >
              <TextInput
                id="hub-proxy-token"
                type="password"
                autoComplete="off"
                value={form.proxyToken ?? ""}
                onChange={(e) => set({ proxyToken: e.target.value })}
                required={access === "impersonation"}
              />
            </Field>
            <Field
              label="User on the managed clusters"
              htmlFor="hub-proxy-user"
              hint="cluster:hub:system:serviceaccount:<namespace>:<proxy service account>: the subject each ClusterPermission binds."
            >
              <TextInput
                id="hub-proxy-user"
                value={form.proxyImpersonatedUser ?? ""}
                onChange={(e) => set({ proxyImpersonatedUser: e.target.value })}
                required={access === "impersonation"}
              />
            </Field>
          </div>
        ) : null}
        {register.error ? <Alert tone="error">{register.error.message}</Alert> : null}
        <div>
          <Button type="submit" disabled={register.isPending}>
            {register.isPending ? "Checking the hub…" : "Register hub"}
          </Button>
        </div>
      </form>
    </Card>
  );
}
