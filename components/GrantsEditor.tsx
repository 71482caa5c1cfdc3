"use client";

import { useState } from "react";
import { GrantInput } from "@/server/auth/contract";
import type { Role } from "@/server/domain/accounts";
import { fleetHrefFor, grantText, SCOPE_HELP, type ShownGrant } from "./grants";
import { Alert, Button, Select, TextInput } from "./ui";

const GRANTABLE: Role[] = ["viewer", "technician", "approver"];

type Row = { key: number; role: Role; scope: string };

/** Where the server said a grant was wrong ("grants.1.scope: …"): that row, in the parser's words. */
export function errorsByRow(message: string): { row: number; text: string } | null {
  const m = /^grants\.(\d+)\.(?:scope|role): (.*)$/s.exec(message);
  return m ? { row: Number(m[1]), text: m[2]! } : null;
}

/**
 * Edits what one person holds: a role and a scope per grant, each scope checked as it is typed with
 * the same rule the server applies, with a link to the fleet view filtered by it to see what it
 * covers. Saving asks for confirmation first, naming what the person will hold.
 */
export function GrantsEditor({
  username,
  initial,
  pending,
  serverError,
  onSave,
  onCancel,
}: {
  username: string;
  initial: readonly ShownGrant[];
  pending: boolean;
  serverError: string | null;
  onSave: (grants: ShownGrant[]) => void;
  onCancel: () => void;
}) {
  const [rows, setRows] = useState<Row[]>(() => initial.map((g, i) => ({ key: i, role: g.role, scope: g.scope })));
  const [next, setNext] = useState(initial.length);
  const [confirming, setConfirming] = useState(false);

  const fieldErrors = rows.map((r) => {
    const read = GrantInput.shape.scope.safeParse(r.scope);
    return read.success ? null : (read.error.issues[0]?.message ?? "not a scope");
  });
  const fromServer = serverError ? errorsByRow(serverError) : null;
  const invalid = fieldErrors.some(Boolean);
  const grants: ShownGrant[] = rows.map((r) => ({ role: r.role, scope: r.scope.trim() }));
  const update = (key: number, change: Partial<Row>) => {
    setConfirming(false);
    setRows((rs) => rs.map((r) => (r.key === key ? { ...r, ...change } : r)));
  };

  return (
    <div className="flex flex-col gap-3" aria-label={`Grants of ${username}`} role="group">
      <p className="text-xs text-muted">{SCOPE_HELP}</p>
      {rows.length === 0 ? (
        <p className="text-sm text-danger">No grant: {username} will be able to sign in but will see no cluster.</p>
      ) : null}
      {rows.map((r, i) => {
        const error = fieldErrors[i] ?? (fromServer?.row === i ? fromServer.text : null);
        return (
          <div key={r.key} className="flex flex-wrap items-start gap-2" data-grant-row={i}>
            <label className="sr-only" htmlFor={`grant-role-${username}-${r.key}`}>
              Role of grant {i + 1}
            </label>
            <Select id={`grant-role-${username}-${r.key}`} value={r.role} onChange={(e) => update(r.key, { role: e.target.value as Role })}>
              {GRANTABLE.map((role) => (
                <option key={role} value={role}>
                  {role}
                </option>
              ))}
            </Select>
            <div className="flex min-w-64 flex-1 flex-col gap-1">
              <label className="sr-only" htmlFor={`grant-scope-${username}-${r.key}`}>
                Scope of grant {i + 1}
              </label>
              <TextInput
                id={`grant-scope-${username}-${r.key}`}
                value={r.scope}
                placeholder="clusterSet=edge-emea (empty: the whole fleet)"
                aria-invalid={error ? true : undefined}
                aria-describedby={error ? `grant-error-${username}-${r.key}` : undefined}
                onChange={(e) => update(r.key, { scope: e.target.value })}
              />
              {error ? (
                <p id={`grant-error-${username}-${r.key}`} className="text-xs text-danger">
                  {error}
                </p>
              ) : null}
            </div>
            <a
              className="py-2 text-sm text-accent underline"
              href={fleetHrefFor(r.scope)}
              target="_blank"
              rel="noreferrer"
              aria-label={`See the clusters grant ${i + 1} covers in the fleet view`}
            >
              See clusters
            </a>
            <Button
              type="button"
              variant="secondary"
              aria-label={`Remove grant ${i + 1}`}
              onClick={() => {
                setConfirming(false);
                setRows((rs) => rs.filter((x) => x.key !== r.key));
              }}
            >
              Remove
            </Button>
          </div>
        );
      })}
      <div className="flex flex-wrap gap-2">
        <Button
          type="button"
          variant="secondary"
          disabled={rows.length >= 50}
          onClick={() => {
            setConfirming(false);
            setRows((rs) => [...rs, { key: next, role: "viewer", scope: "" }]);
            setNext(next + 1);
          }}
        >
          Add grant
        </Button>
        <Button type="button" disabled={invalid || pending} onClick={() => setConfirming(true)}>
          Save grants
        </Button>
        <Button type="button" variant="secondary" onClick={onCancel}>
          Cancel
        </Button>
      </div>
      {serverError && !fromServer ? <Alert tone="error">{serverError}</Alert> : null}
      {confirming ? (
        <div
          role="alertdialog"
          aria-label={`Confirm the grants of ${username}`}
          className="rounded-md border border-line bg-canvas p-3 text-sm"
        >
          <p>
            {grants.length === 0
              ? `Take every grant from ${username}? They will still be able to sign in, but will see no cluster.`
              : `Replace everything ${username} holds with: ${grants.map(grantText).join("; ")}?`}
          </p>
          <div className="mt-2 flex gap-2">
            <Button
              type="button"
              disabled={pending}
              onClick={() => {
                setConfirming(false);
                onSave(grants);
              }}
            >
              {pending ? "Saving…" : "Confirm"}
            </Button>
            <Button type="button" variant="secondary" onClick={() => setConfirming(false)}>
              Back
            </Button>
          </div>
        </div>
      ) : null}
    </div>
  );
}
