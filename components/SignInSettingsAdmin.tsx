"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import {
  signInSettingsEndpoints,
  type OidcSettingsRequest,
  type RoleEntry,
  type SignInSettings,
  type SignInSettingsView,
} from "@/server/auth/contract";
import { call } from "./api";
import { keys, queries } from "./queries";
import type { Seed } from "./seed";
import { useSeededQuery } from "./seededQuery";
import { Alert, Button, Card, TextInput } from "./ui";

const entryText = (r: RoleEntry) => `${r.group}=${r.role}${r.scope ? `@${r.scope}` : ""}`;
const mapping = (roles: RoleEntry[]) => roles.map((r) => `${r.group} → ${r.role}${r.scope ? ` over ${r.scope}` : ""}`).join(", ");

/** The OpenID provider as an admin sets it here; the environment's, when set, wins and is shown instead. */
function OidcForm({ view, onSaved }: { view: SignInSettingsView; onSaved: () => void }) {
  const current = view.oidc?.source === "admin" ? view.oidc : null;
  const [message, setMessage] = useState<{ tone: "ok" | "error"; text: string } | null>(null);
  const save = useMutation({
    mutationFn: (body: OidcSettingsRequest | null) =>
      body ? call(signInSettingsEndpoints.setOidc, { body }) : call(signInSettingsEndpoints.removeOidc),
    onSuccess: (_saved, body) => {
      setMessage({ tone: "ok", text: body ? "Saved. The sign-in page offers the provider now." : "Removed." });
      onSaved();
    },
    onError: (e) => setMessage({ tone: "error", text: e.message }),
  });
  const field = (name: string, label: string, value: string | undefined, type = "text", placeholder?: string) => (
    <label className="flex flex-col gap-1 text-sm">
      {label}
      <TextInput name={name} type={type} defaultValue={value} placeholder={placeholder} autoComplete="off" />
    </label>
  );
  return (
    <form
      aria-label="OpenID provider"
      className="mt-4 grid max-w-3xl gap-3 sm:grid-cols-2"
      onSubmit={(e) => {
        e.preventDefault();
        setMessage(null);
        const form = new FormData(e.currentTarget);
        const get = (k: string) => String(form.get(k) ?? "").trim();
        save.mutate({
          issuer: get("issuer"),
          clientId: get("clientId"),
          ...(get("clientSecret") ? { clientSecret: get("clientSecret") } : {}),
          scopes: get("scopes") || undefined,
          groupsClaim: get("groupsClaim") || undefined,
          roles: get("roles"),
          name: get("name") || undefined,
        });
      }}
    >
      {field("issuer", "Issuer URL", current?.issuer, "url", "https://sso.example.com/realms/ops")}
      {field("name", "Name on the sign-in button", current?.name)}
      {field("clientId", "Client id", current?.clientId)}
      {field(
        "clientSecret",
        "Client secret (sealed; blank keeps it)",
        undefined,
        "password",
        current?.clientSecretSet ? "•••••• (set)" : "",
      )}
      {field("scopes", "Scopes", current?.scopes, "text", "openid profile email")}
      {field("groupsClaim", "Groups claim", current?.groupsClaim, "text", "groups")}
      <div className="sm:col-span-2">
        {field(
          "roles",
          "Groups to roles (group=role or group=role@scope, comma-separated)",
          current?.roles.map(entryText).join(","),
          "text",
          "fleet-admins=admin,emea-field=technician@clusterSet=edge-emea",
        )}
        <p className="mt-1 text-xs text-muted">
          A scope is written as in the fleet view (clusterSet=…, label=key=value, hub=…, platform=…, name=…, joined by &amp;) and cannot
          hold a comma, which separates entries. A person in several groups holds every grant their groups give; admin is always the whole
          fleet.
        </p>
      </div>
      <p className="text-xs text-muted sm:col-span-2">
        Register the redirect URI{" "}
        <code>
          {view.publicUrl ? `${view.publicUrl}/api/v1/session/oidc/callback` : "<FLEETSKEW_PUBLIC_URL>/api/v1/session/oidc/callback"}
        </code>{" "}
        with the provider{view.publicUrl ? "" : " (set FLEETSKEW_PUBLIC_URL first)"}.
      </p>
      {message ? (
        <div className="sm:col-span-2">
          <Alert tone={message.tone}>{message.text}</Alert>
        </div>
      ) : null}
      <div className="flex gap-2 sm:col-span-2">
        <Button type="submit" disabled={save.isPending}>
          Save OpenID provider
        </Button>
        {current ? (
          <Button type="button" variant="secondary" disabled={save.isPending} onClick={() => save.mutate(null)}>
            Remove
          </Button>
        ) : null}
      </div>
    </form>
  );
}

/**
 * How people sign in: the single sign-on the environment configures (shown, not edited here), and
 * whether local passwords still work, with the break-glass account named explicitly.
 */
export function SignInSettingsAdmin({ initial }: { initial: Seed<SignInSettingsView> }) {
  const queryClient = useQueryClient();
  const view = useSeededQuery(queries.signInSettings(), initial).data;
  const [localSignIn, setLocalSignIn] = useState(initial.data.localSignIn);
  const [breakGlass, setBreakGlass] = useState(initial.data.breakGlassAccount ?? "");
  const [message, setMessage] = useState<{ tone: "ok" | "error"; text: string } | null>(null);
  const save = useMutation({
    mutationFn: () =>
      call(signInSettingsEndpoints.change, {
        body: { localSignIn, breakGlassAccount: localSignIn ? null : breakGlass.trim() || null } satisfies SignInSettings,
      }),
    onSuccess: () => {
      setMessage({ tone: "ok", text: "Saved." });
      void queryClient.invalidateQueries({ queryKey: keys.signInSettings });
    },
    onError: (e) => setMessage({ tone: "error", text: e.message }),
  });
  return (
    <Card className="mt-6 p-5">
      <h2 className="text-lg font-semibold">Sign-in</h2>
      <dl className="mt-3 grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">
        <dt className="text-muted">OpenID Connect</dt>
        <dd>
          {view.oidc ? (
            <>
              {view.oidc.name} ({view.oidc.issuer}; set {view.oidc.source === "environment" ? "by the environment" : "here"}), client{" "}
              <code>{view.oidc.clientId}</code>, groups from the <code>{view.oidc.groupsClaim}</code> claim: {mapping(view.oidc.roles)}.
              Redirect URI <code>{view.oidc.redirectUri}</code>
            </>
          ) : (
            "not configured (FLEETSKEW_OIDC_ISSUER, or below)"
          )}
        </dd>
        <dt className="text-muted">OpenShift oauth-proxy</dt>
        <dd>
          {view.authProxy ? (
            <>
              trusted from {view.authProxy.peers.join(", ")}; OpenShift groups: {mapping(view.authProxy.roles)}
            </>
          ) : (
            "not configured (FLEETSKEW_AUTH_PROXY)"
          )}
        </dd>
      </dl>
      <p className="mt-2 max-w-3xl text-xs text-muted">
        A person&apos;s role follows their groups at each sign-in. Environment variables win over what is set here (docs/security.md).
      </p>
      {view.oidc?.source === "environment" ? null : (
        <OidcForm view={view} onSaved={() => void queryClient.invalidateQueries({ queryKey: keys.signInSettings })} />
      )}
      <form
        className="mt-4 flex flex-col gap-3"
        aria-label="Local sign-in"
        onSubmit={(e) => {
          e.preventDefault();
          setMessage(null);
          save.mutate();
        }}
      >
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={localSignIn} onChange={(e) => setLocalSignIn(e.target.checked)} />
          Allow sign-in with a local password
        </label>
        {!localSignIn ? (
          <label className="flex max-w-md flex-col gap-1 text-sm">
            Break-glass account (a local admin that still may sign in with a password; empty for none)
            <TextInput value={breakGlass} onChange={(e) => setBreakGlass(e.target.value)} placeholder="admin" />
            <span className="text-xs text-muted">
              Saving ends every session opened with a password, except the break-glass account&apos;s (yours too, if you signed in with
              another).
            </span>
          </label>
        ) : null}
        {message ? <Alert tone={message.tone}>{message.text}</Alert> : null}
        <div>
          <Button type="submit" disabled={save.isPending}>
            {save.isPending ? "Saving…" : "Save sign-in settings"}
          </Button>
        </div>
      </form>
    </Card>
  );
}
