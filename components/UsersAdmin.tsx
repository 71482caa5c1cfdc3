"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Fragment, useState, type FormEvent } from "react";
import type { z } from "zod";
import { userEndpoints, type NewUserSchema, type UserListEntry as UserRecord, type UserChangeSchema } from "@/server/auth/contract";
import { tokenEndpoints } from "@/server/tokens/contract";
import { formatDate } from "@/lib/format";
import type { Role } from "@/server/domain/accounts";
import { call } from "./api";
import { keys, queries } from "./queries";
import type { Seed } from "./seed";
import { useSeededQuery } from "./seededQuery";
import { GrantsEditor } from "./GrantsEditor";
import { fleetHrefFor, grantText, SCOPE_HELP, type ShownGrant } from "./grants";
import { SignInLocks } from "./SignInLocks";
import { Alert, Button, Card, Field, Select, TextInput } from "./ui";

const ROLES: Role[] = ["viewer", "technician", "approver", "admin"];

export function UsersAdmin({
  initial,
  me,
  roleDescriptions,
}: {
  initial: Seed<UserRecord[]>;
  me: string;
  roleDescriptions: Record<Role, string>;
}) {
  const queryClient = useQueryClient();
  const users = useSeededQuery(queries.users(), initial);
  const [message, setMessage] = useState<{ tone: "ok" | "error"; text: string } | null>(null);
  const [newRole, setNewRole] = useState<Role>("viewer");
  /** A role picked in a row's drop-down, not yet confirmed. */
  const [roleDraft, setRoleDraft] = useState<{ id: string; role: Role } | null>(null);
  /** The person whose grants are being edited. */
  const [editing, setEditing] = useState<string | null>(null);
  const [grantsError, setGrantsError] = useState<string | null>(null);

  const create = useMutation({
    mutationFn: (body: z.input<typeof NewUserSchema>) => call(userEndpoints.create, { body }),
    onSuccess: ({ user }) => {
      setMessage({ tone: "ok", text: `Created ${user.username} (${user.role}). Give them their password in person.` });
      void queryClient.invalidateQueries({ queryKey: keys.users });
    },
    onError: (e) => setMessage({ tone: "error", text: e.message }),
  });

  const change = useMutation({
    mutationFn: ({ id, ...body }: z.input<typeof UserChangeSchema> & { id: string }) =>
      call(userEndpoints.change, { params: { id }, body }),
    onSuccess: ({ user }) => {
      setMessage({ tone: "ok", text: `Updated ${user.username}: ${user.role}${user.disabled ? ", disabled" : ""}.` });
      void queryClient.invalidateQueries({ queryKey: keys.users });
    },
    onError: (e) => setMessage({ tone: "error", text: e.message }),
  });

  const setGrants = useMutation({
    mutationFn: ({ id, grants }: { id: string; grants: ShownGrant[] }) =>
      call(userEndpoints.setGrants, {
        params: { id },
        body: { grants: grants as { role: "viewer" | "technician" | "approver"; scope: string }[] },
      }),
    onSuccess: ({ user }) => {
      setEditing(null);
      setGrantsError(null);
      setMessage({
        tone: "ok",
        text: user.grants.length
          ? `${user.username} now holds ${user.grants.map(grantText).join("; ")}.`
          : `${user.username} holds no grant: they can sign in but see no cluster.`,
      });
      void queryClient.invalidateQueries({ queryKey: keys.users });
    },
    onError: (e) => setGrantsError(e.message),
  });

  /** The token whose revocation waits for confirmation. */
  const [revoking, setRevoking] = useState<string | null>(null);
  const revoke = useMutation({
    mutationFn: (token: { id: string; name: string; owner: string }) => call(tokenEndpoints.revoke, { params: { id: token.id } }),
    onSuccess: (_answer, token) => {
      setRevoking(null);
      setMessage({ tone: "ok", text: `Revoked ${token.owner}'s token ${token.name}: anything using it is refused from now on.` });
      void queryClient.invalidateQueries({ queryKey: keys.users });
    },
    onError: (e) => setMessage({ tone: "error", text: e.message }),
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const role = String(form.get("role")) as Role;
    const scope = String(form.get("scope") ?? "").trim();
    create.mutate(
      {
        username: String(form.get("username") ?? ""),
        displayName: String(form.get("displayName") ?? "") || undefined,
        role,
        password: String(form.get("password") ?? ""),
        // A scope given: the role over that part of the fleet only, instead of the whole fleet.
        ...(scope && role !== "admin" ? { grants: [{ role, scope }] } : {}),
      },
      {
        onSuccess: () => {
          formElement.reset();
          setNewRole("viewer");
        },
      },
    );
  }

  return (
    <div className="grid grid-cols-1 items-start gap-6 lg:grid-cols-[minmax(0,1fr)_22rem]">
      <Card className="relative overflow-x-auto">
        {/* On a phone the table keeps readable columns and scrolls inside its card, as the console's other tables do. */}
        <table className="w-full min-w-[46rem] text-left text-sm">
          <caption className="sr-only">Users</caption>
          <thead className="whitespace-nowrap border-b border-line text-muted">
            <tr>
              <th scope="col" className="px-4 py-3 font-medium">
                User
              </th>
              <th scope="col" className="px-4 py-3 font-medium">
                Role
              </th>
              <th scope="col" className="px-4 py-3 font-medium">
                Grants
              </th>
              <th scope="col" className="px-4 py-3 font-medium">
                Status and tokens
              </th>
              <th scope="col" className="px-4 py-3 font-medium">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {users.data.map((u) => {
              const draft = roleDraft?.id === u.id ? roleDraft.role : null;
              const sso = u.authSource === "oidc" || u.authSource === "openshift";
              return (
                <Fragment key={u.id}>
                  <tr className="border-b border-line last:border-0" data-username={u.username}>
                    <th scope="row" className="px-4 py-3 align-top font-medium">
                      {u.username}
                      {u.id === me ? <span className="ml-2 text-xs font-normal text-muted">(you)</span> : null}
                      {u.displayName ? <div className="text-xs font-normal text-muted">{u.displayName}</div> : null}
                      {sso ? (
                        <div className="text-xs font-normal text-muted">
                          {u.authSource === "oidc" ? "Single sign-on" : "OpenShift"}: grants follow groups at sign-in
                        </div>
                      ) : null}
                      {u.authSource === "service" ? (
                        <div className="text-xs font-normal text-muted">Service account: acts through its API tokens only</div>
                      ) : null}
                    </th>
                    <td className="px-4 py-3 align-top">
                      <label className="sr-only" htmlFor={`role-${u.id}`}>
                        Role of {u.username}
                      </label>
                      <Select
                        id={`role-${u.id}`}
                        value={draft ?? u.role}
                        disabled={change.isPending || u.id === me}
                        title={u.id === me ? "Another admin must change your role" : undefined}
                        onChange={(e) => {
                          const role = e.target.value as Role;
                          setRoleDraft(role === u.role ? null : { id: u.id, role });
                        }}
                      >
                        {ROLES.map((r) => (
                          <option key={r} value={r}>
                            {r}
                          </option>
                        ))}
                      </Select>
                      {draft ? (
                        <div role="alertdialog" aria-label={`Confirm the role of ${u.username}`} className="mt-2 max-w-xs text-xs">
                          <p>
                            Make {u.username} {/^[aeiou]/.test(draft) ? "an" : "a"} {draft} over the whole fleet?{" "}
                            {draft === "admin" ? "Admins may do everything." : "This replaces every grant they hold."}
                          </p>
                          <div className="mt-1 flex gap-2">
                            <Button
                              type="button"
                              disabled={change.isPending}
                              onClick={() => change.mutate({ id: u.id, role: draft }, { onSettled: () => setRoleDraft(null) })}
                            >
                              Change role
                            </Button>
                            <Button type="button" variant="secondary" onClick={() => setRoleDraft(null)}>
                              Cancel
                            </Button>
                          </div>
                        </div>
                      ) : null}
                    </td>
                    <td className="px-4 py-3 align-top">
                      <Grants user={u} />
                      {u.role !== "admin" && !sso && editing !== u.id ? (
                        <button
                          type="button"
                          className="mt-1 text-xs text-accent underline"
                          aria-label={`Edit the grants of ${u.username}`}
                          onClick={() => {
                            setGrantsError(null);
                            setEditing(u.id);
                          }}
                        >
                          Edit grants
                        </button>
                      ) : null}
                    </td>
                    <td className="px-4 py-3 align-top">
                      {u.disabled ? <span className="text-danger">Disabled</span> : <span className="text-ok">Active</span>}
                      {u.tokens.length ? (
                        <ul aria-label={`API tokens of ${u.username}`} className="mt-2 flex flex-col gap-1 text-xs">
                          {u.tokens.map((t) => (
                            <li key={t.id} data-token={t.name}>
                              <span className="font-medium">{t.name}</span>{" "}
                              <span className="text-muted">
                                · expires {formatDate(t.expiresAt)} ·{" "}
                                {t.lastUsedAt
                                  ? `last used ${formatDate(t.lastUsedAt)}${t.lastUsedIp ? ` from ${t.lastUsedIp}` : ""}`
                                  : "never used"}
                              </span>{" "}
                              {revoking === t.id ? (
                                <span
                                  role="alertdialog"
                                  aria-label={`Confirm revoking ${t.name}`}
                                  className="inline-flex flex-wrap items-center gap-2"
                                >
                                  Revoke it? Whatever uses it is refused at once.
                                  <Button
                                    type="button"
                                    variant="danger"
                                    disabled={revoke.isPending}
                                    onClick={() => revoke.mutate({ id: t.id, name: t.name, owner: u.username })}
                                  >
                                    Revoke
                                  </Button>
                                  <Button type="button" variant="secondary" onClick={() => setRevoking(null)}>
                                    Cancel
                                  </Button>
                                </span>
                              ) : (
                                <button
                                  type="button"
                                  className="text-accent underline"
                                  aria-label={`Revoke the token ${t.name} of ${u.username}`}
                                  onClick={() => setRevoking(t.id)}
                                >
                                  Revoke
                                </button>
                              )}
                            </li>
                          ))}
                        </ul>
                      ) : null}
                    </td>
                    <td className="px-4 py-3 text-right align-top">
                      {u.id === me ? null : (
                        <Button
                          variant={u.disabled ? "secondary" : "danger"}
                          disabled={change.isPending}
                          onClick={() => change.mutate({ id: u.id, disabled: !u.disabled })}
                          aria-label={`${u.disabled ? "Enable" : "Disable"} ${u.username}`}
                        >
                          {u.disabled ? "Enable" : "Disable"}
                        </Button>
                      )}
                    </td>
                  </tr>
                  {editing === u.id ? (
                    <tr className="border-b border-line bg-canvas/50">
                      <td colSpan={5} className="px-4 py-3">
                        <GrantsEditor
                          username={u.username}
                          initial={u.grants}
                          pending={setGrants.isPending}
                          serverError={grantsError}
                          onSave={(grants) => setGrants.mutate({ id: u.id, grants })}
                          onCancel={() => {
                            setEditing(null);
                            setGrantsError(null);
                          }}
                        />
                      </td>
                    </tr>
                  ) : null}
                </Fragment>
              );
            })}
          </tbody>
        </table>
      </Card>

      <div className="flex flex-col gap-4">
        {message ? <Alert tone={message.tone}>{message.text}</Alert> : null}
        <Card className="p-5">
          {/* method="post": submitted before the scripts run, the new password goes in a body, never a URL. */}
          <form method="post" onSubmit={submit} className="flex flex-col gap-4" aria-label="Create user">
            <h2 className="text-lg font-semibold">Create user</h2>
            <Field label="Username" htmlFor="new-username" hint="Lower-case letters, digits, dots, dashes, underscores.">
              <TextInput id="new-username" name="username" required minLength={2} maxLength={64} autoComplete="off" />
            </Field>
            <Field label="Display name" htmlFor="new-display-name">
              <TextInput id="new-display-name" name="displayName" maxLength={120} autoComplete="off" />
            </Field>
            <Field label="Role" htmlFor="new-role" hint={roleDescriptions[newRole]}>
              <Select id="new-role" name="role" value={newRole} onChange={(e) => setNewRole(e.target.value as Role)}>
                {ROLES.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </Select>
            </Field>
            {newRole !== "admin" ? (
              <Field label="Over (optional)" htmlFor="new-scope" hint={`The role over this part of the fleet only. ${SCOPE_HELP}`}>
                <TextInput id="new-scope" name="scope" maxLength={2000} autoComplete="off" placeholder="clusterSet=edge-emea" />
              </Field>
            ) : null}
            <Field label="Password" htmlFor="new-password" hint="At least 12 characters.">
              <TextInput id="new-password" name="password" type="password" required minLength={12} autoComplete="new-password" />
            </Field>
            <Button type="submit" disabled={create.isPending}>
              {create.isPending ? "Creating…" : "Create user"}
            </Button>
          </form>
        </Card>
        <SignInLocks />
      </div>
    </div>
  );
}

/** What a person holds, each grant with a link to the clusters it covers. */
function Grants({ user }: { user: UserRecord }) {
  if (user.role === "admin") return <span className="text-sm text-muted">whole fleet (admin)</span>;
  if (user.grants.length === 0) return <span className="text-sm text-danger">no grant: signs in, sees no cluster</span>;
  return (
    <ul className="flex flex-col gap-0.5 text-sm" aria-label={`Grants of ${user.username}`}>
      {user.grants.map((g) => (
        <li key={`${g.role}@${g.scope}`}>
          {g.scope ? (
            <>
              {g.role} ·{" "}
              <a className="text-accent underline" href={fleetHrefFor(g.scope)}>
                {g.scope}
              </a>
            </>
          ) : (
            grantText(g)
          )}
        </li>
      ))}
    </ul>
  );
}
