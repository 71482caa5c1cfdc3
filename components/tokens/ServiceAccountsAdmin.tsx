"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { serviceAccountEndpoints, tokenEndpoints, type ServiceAccountAnswer, type TokenAnswer } from "@/server/tokens/contract";
import { ApiError, call } from "../api";
import { keys, queries } from "../queries";
import type { Seed } from "../seed";
import { useSeededQuery } from "../seededQuery";
import { Alert, Button, Card, Field, Select, TextInput } from "../ui";
import { TokenForm } from "./TokenForm";
import { TokenTable } from "./TokenTable";

type GrantRole = "viewer" | "technician" | "admin";
const GRANT_ROLES: GrantRole[] = ["viewer", "technician", "admin"];

/** Which of the form's fields a refusal is about, from the answer's `field` (grants.0.scope is the scope box). */
function fieldOf(error: ApiError): "username" | "role" | "scope" | null {
  const field = typeof error.data.field === "string" ? error.data.field : "";
  if (field === "username" || error.status === 409) return "username";
  if (/^grants\.\d+\.scope$/.test(field)) return "scope";
  if (field.startsWith("grants")) return "role";
  return null;
}

function Account({
  account,
  onChanged,
  setMessage,
}: {
  account: ServiceAccountAnswer;
  onChanged: () => void;
  setMessage: (m: { tone: "ok" | "error"; text: string }) => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const revoke = useMutation({
    mutationFn: (token: TokenAnswer) => call(tokenEndpoints.revoke, { params: { id: token.id } }),
    onSuccess: ({ token }) => {
      setMessage({ tone: "ok", text: `Revoked ${token.name} of ${account.username}.` });
      onChanged();
    },
    onError: (e) => setMessage({ tone: "error", text: e.message }),
  });
  const disable = useMutation({
    mutationFn: () => call(serviceAccountEndpoints.disable, { params: { id: account.id } }),
    onSuccess: () => {
      setMessage({ tone: "ok", text: `Disabled ${account.username} and revoked its tokens.` });
      onChanged();
    },
    onError: (e) => setMessage({ tone: "error", text: e.message }),
  });
  const isAdmin = account.grants.some((g) => g.role === "admin");
  const ceilings: GrantRole[] = isAdmin
    ? GRANT_ROLES
    : account.grants.some((g) => g.role === "technician")
      ? ["viewer", "technician"]
      : ["viewer"];

  return (
    <section aria-label={`Service account ${account.username}`} data-service-account={account.username}>
      <Card className="p-5">
        <div className="mb-3 flex flex-wrap items-start justify-between gap-3">
          <div>
            <h3 className="text-base font-semibold">
              {account.username}
              {account.disabled ? <span className="ml-2 text-sm font-normal text-danger">Disabled</span> : null}
            </h3>
            {account.displayName ? <p className="text-sm text-muted">{account.displayName}</p> : null}
            <p className="text-sm">
              Holds {account.grants.map((g) => (g.scope ? `${g.role}@${g.scope}` : g.role)).join(", ")}
              {account.createdBy ? <span className="text-muted"> · created by {account.createdBy}</span> : null}
            </p>
          </div>
          {account.disabled ? null : confirming ? (
            <span className="inline-flex items-center gap-2">
              <span className="text-xs">Disable {account.username}? Its tokens are revoked at once.</span>
              <Button variant="danger" disabled={disable.isPending} onClick={() => disable.mutate()}>
                Yes, disable
              </Button>
              <Button variant="secondary" onClick={() => setConfirming(false)}>
                Cancel
              </Button>
            </span>
          ) : (
            <Button variant="danger" aria-label={`Disable ${account.username}`} onClick={() => setConfirming(true)}>
              Disable
            </Button>
          )}
        </div>
        <div className="relative overflow-x-auto">
          <TokenTable
            tokens={account.tokens}
            revoke={(t) => revoke.mutate(t)}
            revoking={revoke.isPending}
            caption={`Tokens of ${account.username}`}
          />
        </div>
        {account.disabled ? null : (
          <details className="mt-4">
            <summary className="cursor-pointer text-sm font-medium">New token for {account.username}</summary>
            <div className="mt-3 max-w-md">
              <TokenForm
                idPrefix={`sa-${account.id}`}
                heading={`New token for ${account.username}`}
                roles={ceilings}
                create={(body) => call(serviceAccountEndpoints.createToken, { params: { id: account.id }, body })}
                onCreated={onChanged}
              />
            </div>
          </details>
        )}
      </Card>
    </section>
  );
}

/** Admins' service accounts: non-human accounts that act only through their tokens. */
export function ServiceAccountsAdmin({ initial }: { initial: Seed<ServiceAccountAnswer[]> }) {
  const queryClient = useQueryClient();
  const accounts = useSeededQuery(queries.serviceAccounts(), initial);
  const [message, setMessage] = useState<{ tone: "ok" | "error"; text: string } | null>(null);
  const [errors, setErrors] = useState<Partial<Record<"username" | "role" | "scope" | "form", string>>>({});
  const refresh = () => void queryClient.invalidateQueries({ queryKey: keys.serviceAccounts });

  const create = useMutation({
    mutationFn: (body: { username: string; displayName?: string; grants: { role: GrantRole; scope: string }[] }) =>
      call(serviceAccountEndpoints.create, { body }),
    onSuccess: ({ serviceAccount }) => {
      setMessage({ tone: "ok", text: `Created ${serviceAccount.username}. Give it a token below.` });
      refresh();
    },
    onError: (e) => {
      if (!(e instanceof ApiError)) return setErrors({ form: "The service account could not be created; try again" });
      const field = fieldOf(e);
      setErrors(field ? { [field]: e.message } : { form: e.message });
    },
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    setErrors({});
    create.mutate(
      {
        username: String(form.get("username") ?? ""),
        displayName: String(form.get("displayName") ?? "") || undefined,
        grants: [{ role: String(form.get("role")) as GrantRole, scope: String(form.get("scope") ?? "") }],
      },
      { onSuccess: () => formElement.reset() },
    );
  }

  const err = (field: "username" | "role" | "scope") =>
    errors[field] ? (
      <p id={`sa-new-${field}-error`} className="text-xs text-danger">
        {errors[field]}
      </p>
    ) : null;

  return (
    <div className="grid grid-cols-1 items-start gap-6 lg:grid-cols-[minmax(0,1fr)_22rem]">
      <div className="flex flex-col gap-4">
        {message ? <Alert tone={message.tone}>{message.text}</Alert> : null}
        {accounts.data.length === 0 ? <p className="text-sm text-muted">No service accounts yet.</p> : null}
        {accounts.data.map((a) => (
          <Account key={a.id} account={a} onChanged={refresh} setMessage={setMessage} />
        ))}
      </div>
      <Card className="p-5">
        <form method="post" onSubmit={submit} className="flex flex-col gap-4" aria-label="Create service account" noValidate>
          <h2 className="text-lg font-semibold">Create service account</h2>
          {errors.form ? <Alert tone="error">{errors.form}</Alert> : null}
          <Field label="Username" htmlFor="sa-new-username" hint="Lower-case letters, digits, dots, dashes, underscores, e.g. ci-emea.">
            <TextInput
              id="sa-new-username"
              name="username"
              required
              minLength={2}
              maxLength={64}
              autoComplete="off"
              aria-invalid={errors.username ? true : undefined}
              aria-describedby={errors.username ? "sa-new-username-error" : undefined}
            />
            {err("username")}
          </Field>
          <Field label="Display name" htmlFor="sa-new-display-name">
            <TextInput id="sa-new-display-name" name="displayName" maxLength={120} autoComplete="off" />
          </Field>
          <Field label="Role" htmlFor="sa-new-role" hint="A service account never approves.">
            <Select
              id="sa-new-role"
              name="role"
              defaultValue="viewer"
              aria-invalid={errors.role ? true : undefined}
              aria-describedby={errors.role ? "sa-new-role-error" : undefined}
            >
              {GRANT_ROLES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </Select>
            {err("role")}
          </Field>
          <Field
            label="Scope"
            htmlFor="sa-new-scope"
            hint="Where the role holds: a fleet filter such as clusterSet=edge-emea. Empty: the whole fleet."
          >
            <TextInput
              id="sa-new-scope"
              name="scope"
              maxLength={2000}
              autoComplete="off"
              aria-invalid={errors.scope ? true : undefined}
              aria-describedby={errors.scope ? "sa-new-scope-error" : undefined}
            />
            {err("scope")}
          </Field>
          <Button type="submit" disabled={create.isPending}>
            {create.isPending ? "Creating…" : "Create service account"}
          </Button>
        </form>
      </Card>
    </div>
  );
}
