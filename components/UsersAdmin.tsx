"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import type { z } from "zod";
import { userEndpoints, type NewUserSchema, type UserAnswer as UserRecord, type UserChangeSchema } from "@/server/auth/contract";
import type { Role } from "@/server/domain/accounts";
import { call } from "./api";
import { keys, queries } from "./queries";
import type { Seed } from "./seed";
import { useSeededQuery } from "./seededQuery";
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

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    create.mutate(
      {
        username: String(form.get("username") ?? ""),
        displayName: String(form.get("displayName") ?? "") || undefined,
        role: String(form.get("role")) as Role,
        password: String(form.get("password") ?? ""),
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
    <div className="grid items-start gap-6 lg:grid-cols-[1fr_22rem]">
      <Card className="overflow-x-auto">
        <table className="w-full text-left text-sm">
          <caption className="sr-only">Users</caption>
          <thead className="border-b border-line text-muted">
            <tr>
              <th scope="col" className="px-4 py-3 font-medium">
                User
              </th>
              <th scope="col" className="px-4 py-3 font-medium">
                Role
              </th>
              <th scope="col" className="px-4 py-3 font-medium">
                Status
              </th>
              <th scope="col" className="px-4 py-3 font-medium">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {users.data.map((u) => (
              <tr key={u.id} className="border-b border-line last:border-0" data-username={u.username}>
                <th scope="row" className="px-4 py-3 font-medium">
                  {u.username}
                  {u.id === me ? <span className="ml-2 text-xs font-normal text-muted">(you)</span> : null}
                  {u.displayName ? <div className="text-xs font-normal text-muted">{u.displayName}</div> : null}
                  {u.authSource !== "password" ? (
                    <div className="text-xs font-normal text-muted">
                      {u.authSource === "oidc" ? "Single sign-on" : "OpenShift"}: role follows groups at sign-in
                    </div>
                  ) : null}
                </th>
                <td className="px-4 py-3">
                  <label className="sr-only" htmlFor={`role-${u.id}`}>
                    Role of {u.username}
                  </label>
                  <Select
                    id={`role-${u.id}`}
                    value={u.role}
                    disabled={change.isPending || u.id === me}
                    title={u.id === me ? "Another admin must change your role" : undefined}
                    onChange={(e) => change.mutate({ id: u.id, role: e.target.value as Role })}
                  >
                    {ROLES.map((r) => (
                      <option key={r} value={r}>
                        {r}
                      </option>
                    ))}
                  </Select>
                </td>
                <td className="px-4 py-3">
                  {u.disabled ? <span className="text-danger">Disabled</span> : <span className="text-ok">Active</span>}
                </td>
                <td className="px-4 py-3 text-right">
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
            ))}
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
