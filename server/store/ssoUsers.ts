import { auditRow } from "./audit";
import { getDb } from "./db";
import type { NewSession, SignInMethod } from "./sessions";
import { grantsOf, toRecord, type Role, type UserRecord } from "./users";
import type { Grant } from "../domain/grants";
import { sameGrants } from "../domain/grantChanges";

export type ExternalIdentity = {
  /** "oidc:<issuer>#<sub>" or "openshift:<user>": how the account is found again, whatever its name. */
  externalId: string;
  username: string;
  displayName: string | null;
  method: Exclude<SignInMethod, "password">;
};

const recordOf = (row: Parameters<typeof toRecord>[0]): UserRecord => toRecord({ ...row, disabledAt: null });

const withGrants = { grants: { select: { role: true, scope: true } } } as const;

/** What the groups give at this sign-in: the role shown, and the grants (none for an admin). */
export type GroupGrants = { role: Role; grants: Grant[] };

const grantText = (g: Grant) => (g.scope ? `${g.role}@${g.scope}` : g.role);

export type ExternalSignIn =
  | { outcome: "signed-in"; user: UserRecord; roleChanged: { from: Role; to: Role } | null }
  | { outcome: "disabled"; username: string }
  | { outcome: "username-taken"; username: string };

/**
 * A person signing in through single sign-on, in one transaction: the account found by its
 * external id (created on the first sign-in, with no password), its role and grants replaced by what
 * the groups give now (audited when they change), the session and the audit events. A disabled account stays out. An account is never
 * matched by name: a provider's user "admin" does not become the local admin.
 */
export async function signInExternalUser(
  identity: ExternalIdentity,
  access: GroupGrants,
  session: Omit<NewSession, "userId" | "method">,
  audit: { ip: string | null; details: Record<string, unknown> },
): Promise<ExternalSignIn> {
  return getDb().$transaction(async (tx) => {
    // Serialise first sign-ins of one identity so that two tabs cannot create two accounts.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${identity.externalId}))`;
    // Another process signed this very token in a moment ago (a proxy's first requests, in parallel).
    const already = await tx.session.findUnique({ where: { tokenHash: session.tokenHash }, include: { user: { include: withGrants } } });
    if (already && !already.user.disabledAt && already.user.externalId === identity.externalId)
      return { outcome: "signed-in", roleChanged: null, user: recordOf(already.user) };
    const { role } = access;
    // An admin holds the whole fleet and no grant rows.
    const grants = role === "admin" ? [] : access.grants;
    const existing = await tx.user.findUnique({ where: { externalId: identity.externalId }, include: withGrants });
    if (existing?.disabledAt) return { outcome: "disabled", username: existing.username };
    let row = existing;
    let roleChanged: { from: Role; to: Role } | null = null;
    if (!row) {
      const taken = await tx.user.findUnique({ where: { username: identity.username } });
      if (taken) return { outcome: "username-taken", username: identity.username };
      row = await tx.user.create({
        data: {
          username: identity.username,
          displayName: identity.displayName,
          role,
          passwordHash: "",
          authSource: identity.method,
          externalId: identity.externalId,
          grants: { create: grants.map((g) => ({ role: g.role, scope: g.scope })) },
        },
        include: withGrants,
      });
      await tx.auditEvent.create({
        data: auditRow({
          actor: identity.username,
          role,
          action: "user.create",
          targetType: "user",
          targetId: identity.username,
          ip: audit.ip,
          details: { role, grants, signIn: identity.method, reason: "first sign-in", ...audit.details },
        }),
      });
    } else {
      const before = grantsOf(row.role, row.grants);
      const after = grantsOf(role, grants);
      const grantsChanged = !sameGrants(before, after);
      if (row.role !== role) roleChanged = { from: row.role, to: role };
      if (grantsChanged) {
        await tx.accessGrant.deleteMany({ where: { userId: row.id } });
        if (grants.length)
          await tx.accessGrant.createMany({ data: grants.map((g) => ({ userId: row!.id, role: g.role, scope: g.scope })) });
      }
      if (roleChanged || grantsChanged || row.displayName !== identity.displayName)
        row = await tx.user.update({ where: { id: row.id }, data: { role, displayName: identity.displayName }, include: withGrants });
      if (roleChanged || grantsChanged)
        await tx.auditEvent.create({
          data: auditRow({
            actor: row.username,
            role,
            action: "user.update",
            targetType: "user",
            targetId: row.username,
            ip: audit.ip,
            summary: `grants of ${row.username} changed from ${before.map(grantText).join(", ") || "none"} to ${after.map(grantText).join(", ") || "none"} by their groups at sign-in`,
            details: {
              ...(roleChanged ? { role: roleChanged } : {}),
              ...(grantsChanged ? { grants: { from: before, to: after } } : {}),
              signIn: identity.method,
              ...audit.details,
            },
          }),
        });
    }
    await tx.session.create({ data: { ...session, userId: row.id, method: identity.method } });
    row = await tx.user.update({ where: { id: row.id }, data: { lastSignInAt: new Date() }, include: withGrants });
    await tx.auditEvent.create({
      data: auditRow({
        actor: row.username,
        role: row.role,
        action: "session.login",
        targetType: "user",
        targetId: row.username,
        ip: audit.ip,
        summary: `signed in with ${identity.method === "oidc" ? "single sign-on (OpenID Connect)" : "OpenShift (oauth-proxy)"}`,
        details: { method: identity.method, ...audit.details },
      }),
    });
    return { outcome: "signed-in", roleChanged, user: recordOf(row) };
  });
}

/** The account of an external identity, if any (to tell a refused person which account it was). */
export async function findExternalUser(externalId: string): Promise<{ username: string; disabled: boolean } | null> {
  const row = await getDb().user.findUnique({ where: { externalId }, select: { username: true, disabledAt: true } });
  return row ? { username: row.username, disabled: row.disabledAt !== null } : null;
}

/** Ends every session of an external identity's account (its groups no longer give a role), audited when there were any. */
export async function endExternalSessions(externalId: string, audit: { ip: string | null; reason: string }): Promise<number> {
  return getDb().$transaction(async (tx) => {
    const user = await tx.user.findUnique({ where: { externalId }, select: { id: true, username: true, role: true } });
    if (!user) return 0;
    const { count } = await tx.session.deleteMany({ where: { userId: user.id } });
    if (count > 0)
      await tx.auditEvent.create({
        data: auditRow({
          actor: null,
          action: "session.logout",
          targetType: "user",
          targetId: user.username,
          ip: audit.ip,
          summary: `ended ${count} session(s) of ${user.username}: ${audit.reason}`,
          details: { sessions: count, reason: audit.reason },
        }),
      });
    return count;
  });
}
