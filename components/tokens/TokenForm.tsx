"use client";

import { useState, type FormEvent } from "react";
import { MAX_TOKEN_DAYS, type CreatedTokenAnswer, type NewTokenRequest } from "@/server/tokens/contract";
import { ApiError, fieldError } from "../api";
import { Alert, Button, Field, Select, TextInput } from "../ui";

const FIELDS = ["name", "expiresInDays", "role", "scope"] as const;
type FieldName = (typeof FIELDS)[number];

/** Each refused field's sentence, from the answer's `field` and `issues`; the rest goes above the form. */
function errorsOf(error: unknown): Partial<Record<FieldName | "form", string>> {
  if (!(error instanceof ApiError)) return { form: "The token could not be created; try again" };
  const found: Partial<Record<FieldName | "form", string>> = {};
  for (const f of FIELDS) {
    const message = fieldError(error, f);
    if (message) found[f] = message;
  }
  return Object.keys(found).length ? found : { form: error.message };
}

function FieldError({ id, message }: { id: string; message: string | undefined }) {
  return message ? (
    <p id={id} className="text-xs text-danger">
      {message}
    </p>
  ) : null;
}

/**
 * Creates a token: name, expiry, role ceiling and scope; the secret is shown once, with a way to copy
 * it. `roles` are the ceilings the owner may give (the server refuses anything wider all the same).
 */
export function TokenForm({
  idPrefix,
  roles,
  create,
  onCreated,
  heading = "Create a token",
}: {
  idPrefix: string;
  roles: readonly ("viewer" | "technician" | "admin")[];
  create: (body: NewTokenRequest) => Promise<CreatedTokenAnswer>;
  onCreated?: (token: CreatedTokenAnswer) => void;
  heading?: string;
}) {
  const [errors, setErrors] = useState<Partial<Record<FieldName | "form", string>>>({});
  const [created, setCreated] = useState<CreatedTokenAnswer | null>(null);
  const [pending, setPending] = useState(false);
  const [copied, setCopied] = useState(false);
  const id = (field: string) => `${idPrefix}-${field}`;

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const role = String(form.get("role") ?? "");
    setErrors({});
    setCreated(null);
    setCopied(false);
    setPending(true);
    try {
      const token = await create({
        name: String(form.get("name") ?? ""),
        expiresInDays: Number(form.get("expiresInDays")),
        role: role ? (role as NewTokenRequest["role"]) : null,
        scope: String(form.get("scope") ?? ""),
      });
      setCreated(token);
      formElement.reset();
      onCreated?.(token);
    } catch (error) {
      setErrors(errorsOf(error));
    } finally {
      setPending(false);
    }
  }

  async function copy() {
    if (!created) return;
    try {
      await navigator.clipboard.writeText(created.token);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  }

  const described = (field: FieldName) => (errors[field] ? id(`${field}-error`) : undefined);

  return (
    <div className="flex flex-col gap-4">
      {created ? (
        <div className="flex flex-col gap-2 rounded-md border border-ok bg-surface p-3" role="status">
          <p className="text-sm font-medium">
            Token {created.name} created. Copy it now: Fleetskew keeps only a hash of it and cannot show it again.
          </p>
          <label htmlFor={id("secret")} className="sr-only">
            The new token&apos;s secret
          </label>
          <TextInput id={id("secret")} readOnly value={created.token} className="font-mono" onFocus={(e) => e.currentTarget.select()} />
          <div className="flex items-center gap-3">
            <Button type="button" variant="secondary" onClick={copy}>
              Copy
            </Button>
            <span className="text-xs text-muted">{copied ? "Copied." : "Send it as the header Authorization: Bearer <token>."}</span>
          </div>
        </div>
      ) : null}
      {/* method="post": without scripts nothing of the form goes into a URL. */}
      <form method="post" onSubmit={submit} className="flex flex-col gap-4" aria-label={heading} noValidate>
        <h2 className="text-lg font-semibold">{heading}</h2>
        {errors.form ? <Alert tone="error">{errors.form}</Alert> : null}
        <Field label="Name" htmlFor={id("name")} hint="What uses it, e.g. the nightly pipeline.">
          <TextInput
            id={id("name")}
            name="name"
            required
            maxLength={100}
            autoComplete="off"
            aria-invalid={errors.name ? true : undefined}
            aria-describedby={described("name")}
          />
          <FieldError id={id("name-error")} message={errors.name} />
        </Field>
        <Field label="Expires in (days)" htmlFor={id("expiresInDays")} hint={`Every token expires; at most ${MAX_TOKEN_DAYS} days.`}>
          <TextInput
            id={id("expiresInDays")}
            name="expiresInDays"
            type="number"
            inputMode="numeric"
            min={1}
            max={MAX_TOKEN_DAYS}
            defaultValue={90}
            required
            aria-invalid={errors.expiresInDays ? true : undefined}
            aria-describedby={described("expiresInDays")}
          />
          <FieldError id={id("expiresInDays-error")} message={errors.expiresInDays} />
        </Field>
        <Field label="At most" htmlFor={id("role")} hint="A token never approves or manages accounts, whatever its owner may do.">
          <Select
            id={id("role")}
            name="role"
            defaultValue=""
            aria-invalid={errors.role ? true : undefined}
            aria-describedby={described("role")}
          >
            <option value="">The owner&apos;s own roles</option>
            {roles.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </Select>
          <FieldError id={id("role-error")} message={errors.role} />
        </Field>
        <Field
          label="Scope"
          htmlFor={id("scope")}
          hint="Optional: a fleet filter such as clusterSet=edge-emea or label=region=emea. Empty: all the owner reaches."
        >
          <TextInput
            id={id("scope")}
            name="scope"
            maxLength={2000}
            autoComplete="off"
            aria-invalid={errors.scope ? true : undefined}
            aria-describedby={described("scope")}
          />
          <FieldError id={id("scope-error")} message={errors.scope} />
        </Field>
        <Button type="submit" disabled={pending}>
          {pending ? "Creating…" : "Create token"}
        </Button>
      </form>
    </div>
  );
}
