"use client";

import { useState, type FormEvent } from "react";
import { sessionEndpoints } from "@/server/auth/contract";
import { call } from "./api";
import { afterSignIn } from "./sameOriginPath";
import { Alert, Button, Field, TextInput } from "./ui";

/** The password form; with local sign-in turned off, folded away as the break-glass way in. */
export function LoginForm({ next, localSignIn = true }: { next: string; localSignIn?: boolean }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    try {
      await call(sessionEndpoints.signIn, {
        body: { username: String(form.get("username") ?? ""), password: String(form.get("password") ?? "") },
      });
      // A full navigation so every server component renders for the new session; judged again
      // here, against the origin the browser is actually on.
      window.location.assign(afterSignIn(next, window.location.origin));
    } catch (e) {
      setError((e as Error).message);
      setBusy(false);
    }
  }

  const form = (
    // method="post": submitted before the page's scripts run, the browser sends the password in the
    // body of a POST, never in the URL (where history, proxies and access logs keep it).
    <form
      method="post"
      onSubmit={submit}
      className="flex flex-col gap-4 rounded-lg border border-line bg-surface p-6 shadow-sm"
      aria-label="Sign in"
    >
      <h2 className="text-lg font-semibold">Sign in</h2>
      {error ? <Alert tone="error">{error}</Alert> : null}
      <Field label="Username" htmlFor="username">
        <TextInput id="username" name="username" autoComplete="username" required autoFocus />
      </Field>
      <Field label="Password" htmlFor="password">
        <TextInput id="password" name="password" type="password" autoComplete="current-password" required />
      </Field>
      <Button type="submit" disabled={busy}>
        {busy ? "Signing in…" : "Sign in"}
      </Button>
      {localSignIn ? (
        <p className="text-xs text-muted">
          First start? The admin password is in <code>.fleetskew/initial-admin-password</code>, and demo accounts in{" "}
          <code>.fleetskew/demo-credentials.json</code>.
        </p>
      ) : (
        <p className="text-xs text-muted">Sign-in with a password is turned off; only the break-glass account may use it.</p>
      )}
    </form>
  );
  if (localSignIn) return form;
  return (
    <details className="text-sm">
      <summary className="cursor-pointer text-muted">Break-glass sign-in with a password</summary>
      <div className="mt-3">{form}</div>
    </details>
  );
}
