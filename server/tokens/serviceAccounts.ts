import type { z } from "zod";
import { auditActor, type Actor } from "../auth/actor";
import { UserFacingError } from "../errors";
import type { Role } from "../domain/accounts";
import { grantLabel, type Grant } from "../domain/grants";
import { parseScope } from "../domain/scope";
import { listApiTokensOf } from "../store/apiTokens";
import { disableServiceAccount, findServiceAccount, listServiceAccounts, type ServiceAccountRecord } from "../store/serviceAccounts";
import { createUser, UsernameTakenError } from "../store/users";
import type { CreatedTokenAnswer, NewServiceAccountSchema, NewTokenSchema, ServiceAccountAnswer } from "./contract";
import { issueToken, tokenView } from "./tokens";

/** The account's role, as the users list shows it: admin alone, else the widest of its grants. */
function roleOf(grants: readonly Grant[]): Role {
  if (grants.some((g) => g.role === "admin")) return "admin";
  return grants.some((g) => g.role === "technician") ? "technician" : "viewer";
}

/** Grants as asked, each scope read; admin only alone and over the whole fleet, as admins are. */
function checkGrants(input: z.output<typeof NewServiceAccountSchema>["grants"]): Grant[] {
  const grants: Grant[] = [];
  for (const [i, g] of input.entries()) {
    const read = parseScope(g.scope);
    if (!read.ok)
      throw new UserFacingError(
        400,
        `The scope of grant ${i + 1} is not one Fleetskew reads: ${read.error}`,
        {},
        { field: `grants.${i}.scope` },
      );
    if (g.role === "admin" && (read.text !== "" || input.length > 1))
      throw new UserFacingError(
        400,
        "Admin is held over the whole fleet and alone: give admin with an empty scope and no other grant",
        {},
        { field: `grants.${i}.role` },
      );
    if (!grants.some((h) => h.role === g.role && h.scope === read.text)) grants.push({ role: g.role, scope: read.text });
  }
  return grants;
}

async function withTokens(accounts: ServiceAccountRecord[]): Promise<ServiceAccountAnswer[]> {
  const tokens = await listApiTokensOf(accounts.map((a) => a.id));
  const now = new Date();
  return accounts.map((a) => ({ ...a, tokens: tokens.filter((t) => t.userId === a.id).map((t) => tokenView(t, now)) }));
}

export async function serviceAccounts(): Promise<ServiceAccountAnswer[]> {
  return withTokens(await listServiceAccounts());
}

export async function createServiceAccount(input: z.output<typeof NewServiceAccountSchema>, actor: Actor): Promise<ServiceAccountAnswer> {
  const grants = checkGrants(input.grants);
  const role = roleOf(grants);
  try {
    const user = await createUser(
      {
        username: input.username,
        displayName: input.displayName || null,
        role,
        // Empty: no password ever matches it, and sign-in refuses service accounts besides.
        passwordHash: "",
        grants: role === "admin" ? [] : grants,
        authSource: "service",
        createdBy: actor.user.username,
      },
      { ...auditActor(actor), summary: `created service account ${input.username} holding ${grants.map(grantLabel).join(", ")}` },
    );
    return { ...user, createdBy: actor.user.username, tokens: [] };
  } catch (error) {
    if (error instanceof UsernameTakenError)
      throw new UserFacingError(409, `${error.message}; choose another name for the service account`);
    throw error;
  }
}

export async function disableService(id: string, actor: Actor): Promise<ServiceAccountAnswer> {
  const account = await findServiceAccount(id);
  if (!account) throw new UserFacingError(404, "No such service account");
  const disabled = await disableServiceAccount(id, new Date(), {
    ...auditActor(actor),
    targetType: "user",
    targetId: account.username,
    summary: `disabled service account ${account.username} and revoked its tokens`,
  });
  if (!disabled) throw new UserFacingError(404, "No such service account");
  return (await withTokens([disabled]))[0]!;
}

export async function issueServiceToken(id: string, input: z.output<typeof NewTokenSchema>, actor: Actor): Promise<CreatedTokenAnswer> {
  const account = await findServiceAccount(id);
  if (!account) throw new UserFacingError(404, "No such service account");
  return issueToken(account, input, actor);
}
