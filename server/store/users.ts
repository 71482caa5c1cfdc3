import { auditRow, type AuditInput } from "./audit";
import { getDb } from "./db";
import { Prisma } from "./generated/prisma/client";
import type { Role, SignInMethod } from "../domain/accounts";

export { ROLES, type Role } from "../domain/accounts";

export type UserRecord = {
  id: string;
  username: string;
  displayName: string | null;
  role: Role;
  disabled: boolean;
  createdAt: string;
  /** password: a local account; oidc, openshift: single sign-on, whose role follows the person's groups. */
  authSource: SignInMethod;
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

const toRecord = (u: Row): UserRecord => ({
  id: u.id,
  username: u.username,
  displayName: u.displayName,
  role: u.role,
  disabled: u.disabledAt !== null,
  createdAt: u.createdAt.toISOString(),
  authSource: u.authSource,
});

export class UsernameTakenError extends Error {
  override name = "UsernameTakenError";
}

export async function listUsers(): Promise<UserRecord[]> {
  const rows = await getDb().user.findMany({ orderBy: { username: "asc" } });
  return rows.map(toRecord);
}

export async function findUserForLogin(username: string): Promise<UserWithHash | null> {
  const row = await getDb().user.findUnique({ where: { username } });
  return row ? { ...toRecord(row), passwordHash: row.passwordHash } : null;
}

export async function createUser(
  input: { username: string; displayName?: string | null; role: Role; passwordHash: string },
  audit: Omit<AuditInput, "action" | "targetType" | "targetId">,
): Promise<UserRecord> {
  try {
    const [user] = await getDb().$transaction([
      getDb().user.create({
        data: { username: input.username, displayName: input.displayName ?? null, role: input.role, passwordHash: input.passwordHash },
      }),
      getDb().auditEvent.create({
        data: auditRow({
          ...audit,
          action: "user.create",
          targetType: "user",
          targetId: input.username,
          details: { role: input.role, ...audit.details },
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
      const updated = await tx.user.update({
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
        await tx.user.create({ data: account });
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
