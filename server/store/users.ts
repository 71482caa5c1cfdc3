import { auditRow, type AuditInput } from "./audit";
import { getDb } from "./db";
import { Prisma } from "./generated/prisma/client";
import type { Role, SignInMethod } from "../domain/accounts";
import { fleetGrant, type Grant } from "../domain/grants";
import { roleOfGrants, sameGrants } from "../domain/grantChanges";

export { ROLES, type Role } from "../domain/accounts";

export type UserRecord = {
  id: string;
  username: string;
  displayName: string | null;
  role: Role;
  disabled: boolean;
  createdAt: string;
  /** password: a local account; oidc, openshift: single sign-on, whose role follows the person's groups; service: tokens only. */
  authSource: SignInMethod;
  /** What the account holds: each a role over a scope. An admin holds the whole fleet. */
  grants: Grant[];
};

export type UserWithHash = UserRecord & { passwordHash: string };

type Row = {
  id: string;
  username: string;
  displayName: string | null;
  role: Role;
  disabledAt: Date | null;
  createdAt: Date;
  authSource: SignInMethod;
};

/** What an account holds: admins the whole fleet; anyone else the grants stored for them. */
export function grantsOf(role: Role, stored: readonly { role: Role; scope: string }[] | undefined): Grant[] {
  if (role === "admin") return [fleetGrant("admin")];
  return (stored ?? [])
    .map((g) => ({ role: g.role, scope: g.scope }))
    .sort((a, b) => a.role.localeCompare(b.role) || a.scope.localeCompare(b.scope));
}

export const toRecord = (u: Row & { grants?: { role: Role; scope: string }[] }): UserRecord => {
  const grants = grantsOf(u.role, u.grants);
  return {
    id: u.id,
    username: u.username,
    displayName: u.displayName,
    role: u.role,
    disabled: u.disabledAt !== null,
    createdAt: u.createdAt.toISOString(),
    authSource: u.authSource,
    grants,
  };
};

const withGrants = { grants: { select: { role: true, scope: true } } } as const;

export class UsernameTakenError extends Error {
  override name = "UsernameTakenError";
}

export async function listUsers(): Promise<UserRecord[]> {
  const rows = await getDb().user.findMany({ orderBy: { username: "asc" }, include: withGrants });
  return rows.map(toRecord);
}

export async function findUserForLogin(username: string): Promise<UserWithHash | null> {
  const row = await getDb().user.findUnique({ where: { username }, include: withGrants });
  return row ? { ...toRecord(row), passwordHash: row.passwordHash } : null;
}

export async function createUser(
  input: {
    username: string;
    displayName?: string | null;
    role: Role;
    passwordHash: string;
    grants?: Grant[];
    /** "service": a service account (with an empty passwordHash), which acts through its tokens only. */
    authSource?: "password" | "service";
    createdBy?: string;
  },
  audit: Omit<AuditInput, "action" | "targetType" | "targetId">,
): Promise<UserRecord> {
  // A new account holds its role over the whole fleet unless it is given grants of its own.
  const grants = input.role === "admin" ? [] : (input.grants ?? [fleetGrant(input.role)]);
  try {
    const [user] = await getDb().$transaction([
      getDb().user.create({
        data: {
          username: input.username,
          displayName: input.displayName ?? null,
          role: input.role,
          passwordHash: input.passwordHash,
          authSource: input.authSource ?? "password",
          createdBy: input.createdBy ?? null,
          grants: { create: grants.map((g) => ({ role: g.role, scope: g.scope })) },
        },
        include: withGrants,
      }),
      getDb().auditEvent.create({
        data: auditRow({
          ...audit,
          action: input.authSource === "service" ? "service-account.create" : "user.create",
          targetType: "user",
          targetId: input.username,
          details: { role: input.role, grants, ...audit.details },
        }),
      }),
    ]);
    return toRecord(user);
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      throw new UsernameTakenError(`a user named ${input.username} already exists`);
    }
    throw error;
  }
}

export type UserChange = { role?: Role; disabled?: boolean; passwordHash?: string; displayName?: string | null };

/**
 * Applies a change to one user with its audit event. `guard` runs inside the transaction with the
 * current state of all users, so checks such as "keep one active admin" cannot race.
 * Disabling a user or changing their password ends their sessions.
 */
export async function updateUser(
  id: string,
  change: UserChange,
  audit: Omit<AuditInput, "action" | "targetType" | "targetId">,
  guard: (current: UserRecord, all: UserRecord[]) => void,
): Promise<UserRecord | null> {
  return getDb().$transaction(
    async (tx) => {
      // Lock the user rows so two admins demoting each other cannot both pass the guard.
      const all = (
        await tx.$queryRaw<
          Row[]
        >`SELECT id, username, "displayName", role, "disabledAt", "createdAt", "authSource" FROM "User" ORDER BY username FOR UPDATE`
      ).map(toRecord);
      const current = all.find((u) => u.id === id);
      if (!current) return null;
      guard(current, all);
      // A role set here is held over the whole fleet: it replaces the account's grants.
      if (change.role !== undefined && change.role !== current.role) {
        await tx.accessGrant.deleteMany({ where: { userId: id } });
        if (change.role !== "admin") await tx.accessGrant.create({ data: { userId: id, role: change.role, scope: "" } });
      }
      const updated = await tx.user.update({
        include: withGrants,
        where: { id },
        data: {
          ...(change.role !== undefined ? { role: change.role } : {}),
          ...(change.displayName !== undefined ? { displayName: change.displayName } : {}),
          ...(change.passwordHash !== undefined ? { passwordHash: change.passwordHash } : {}),
          ...(change.disabled !== undefined ? { disabledAt: change.disabled ? (current.disabled ? undefined : new Date()) : null } : {}),
        },
      });
      if (change.disabled || change.passwordHash !== undefined) {
        await tx.session.deleteMany({ where: { userId: id } });
      }
      const details: Record<string, unknown> = {};
      if (change.role !== undefined) details.role = { from: current.role, to: change.role };
      if (change.disabled !== undefined) details.disabled = change.disabled;
      if (change.passwordHash !== undefined) details.passwordChanged = true;
      if (change.displayName !== undefined) details.displayName = change.displayName;
      await tx.auditEvent.create({
        data: auditRow({ ...audit, action: "user.update", targetType: "user", targetId: current.username, details }),
      });
      return toRecord(updated);
    },
    { isolationLevel: "ReadCommitted" },
  );
}

export type GrantsReplaced =
  | { outcome: "replaced"; user: UserRecord }
  | { outcome: "missing" }
  | { outcome: "admin"; username: string }
  | { outcome: "single-sign-on"; username: string };

/**
 * Replaces every grant a person holds, with the account's role set to the highest of them (see
 * roleOfGrants) and an audit event saying from what to what. Admins hold no grants (they are
 * fleet-wide); accounts of single sign-on take theirs from their groups at each sign-in. The row is
 * locked so that a role change racing with this one cannot leave an admin holding grants.
 */
export async function replaceGrants(
  id: string,
  grants: Grant[],
  audit: Omit<AuditInput, "action" | "targetType" | "targetId">,
): Promise<GrantsReplaced> {
  return getDb().$transaction(async (tx) => {
    const [locked] = await tx.$queryRaw<
      Row[]
    >`SELECT id, username, "displayName", role, "disabledAt", "createdAt", "authSource" FROM "User" WHERE id = ${id}::uuid FOR UPDATE`;
    if (!locked) return { outcome: "missing" as const };
    if (locked.role === "admin") return { outcome: "admin" as const, username: locked.username };
    if (locked.authSource === "oidc" || locked.authSource === "openshift")
      return { outcome: "single-sign-on" as const, username: locked.username };
    const before = grantsOf(locked.role, await tx.accessGrant.findMany({ where: { userId: id }, select: { role: true, scope: true } }));
    const role = roleOfGrants(grants);
    await tx.accessGrant.deleteMany({ where: { userId: id } });
    if (grants.length) await tx.accessGrant.createMany({ data: grants.map((g) => ({ userId: id, role: g.role, scope: g.scope })) });
    const updated = await tx.user.update({ where: { id }, data: { role }, include: withGrants });
    if (!sameGrants(before, grants) || role !== locked.role)
      await tx.auditEvent.create({
        data: auditRow({
          ...audit,
          action: "user.grants",
          targetType: "user",
          targetId: locked.username,
          summary: `grants of ${locked.username} set to ${grants.length ? grants.map(grantText).join(", ") : "none (signs in, sees no cluster)"}`,
          details: { grants: { from: before, to: grants }, ...(role !== locked.role ? { role: { from: locked.role, to: role } } : {}) },
        }),
      });
    return { outcome: "replaced" as const, user: toRecord(updated) };
  });
}

const grantText = (g: Grant) => (g.scope ? `${g.role}@${g.scope}` : `${g.role} (whole fleet)`);

/**
 * Creates the first accounts when there are none, all-or-nothing. `beforeCommit` runs inside the
 * transaction (it writes the credential files), so a failure there leaves no accounts behind, and
 * a second process starting at the same moment waits on the lock and then finds users present.
 */
export async function createInitialUsers(
  accounts: { username: string; role: Role; passwordHash: string }[],
  audit: Omit<AuditInput, "action" | "targetType" | "targetId">,
  beforeCommit: () => Promise<void>,
): Promise<boolean> {
  return getDb().$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(7220414202)`;
      if ((await tx.user.count()) > 0) return false;
      for (const account of accounts) {
        await tx.user.create({
          data: { ...account, grants: account.role === "admin" ? undefined : { create: [{ role: account.role, scope: "" }] } },
        });
        await tx.auditEvent.create({
          data: auditRow({
            ...audit,
            action: "user.create",
            targetType: "user",
            targetId: account.username,
            details: { role: account.role, ...audit.details },
          }),
        });
      }
      await beforeCommit();
      return true;
    },
    { timeout: 30_000 },
  );
}
