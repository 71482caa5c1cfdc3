import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { auditActor, type Actor } from "../auth/actor";
import { UserFacingError } from "../errors";
import { displayPrefix, isWellFormedSecret, MAX_TOKEN_DAYS, secretFromRandom, TOKEN_PREFIX } from "../domain/apiTokenSecret";
import { grantLabel, holdGrants, holdsRole, isAdmin, narrowForToken, type TokenLimits } from "../domain/grants";
import { parseScope } from "../domain/scope";
import {
  findApiToken,
  findTokenBySecretHash,
  insertApiToken,
  listApiTokens,
  recordTokenUse,
  revokeApiToken,
  type ApiTokenRecord,
} from "../store/apiTokens";
import type { UserRecord } from "../store/users";
import type { NewTokenSchema, TokenAnswer, CreatedTokenAnswer } from "./contract";
import type { z } from "zod";

const DAY_MS = 86_400_000;

/** A secret's SHA-256, as stored: the whole secret, so the stored value alone gives nothing to replay. */
export const hashSecret = (secret: string) => createHash("sha256").update(secret).digest("hex");

/** A token as the API answers it, with its state at `now`. */
export function tokenView(token: ApiTokenRecord, now: Date = new Date()): TokenAnswer {
  const { userId: _, ...rest } = token;
  const state = token.revokedAt ? "revoked" : new Date(token.expiresAt) <= now ? "expired" : "active";
  return { ...rest, state };
}

/**
 * The limits asked for, checked against what the owner holds: never wider. A ceiling the owner
 * does not hold is refused (403), approver is refused outright (a token never approves: 400), a
 * scope that does not parse or that shares no cluster with the owner's grants is refused (400).
 */
function checkLimits(owner: UserRecord, input: z.output<typeof NewTokenSchema>): { role: TokenLimits["role"]; scope: string } {
  const read = parseScope(input.scope);
  if (!read.ok) throw new UserFacingError(400, `The scope is not one Fleetskew reads: ${read.error}`, {}, { field: "scope" });
  const role = input.role ?? null;
  if (role === "approver")
    throw new UserFacingError(
      400,
      "A token never approves; choose viewer or technician, or leave the role out for your own roles (without approving)",
      {},
      { field: "role" },
    );
  const held = holdGrants(owner.grants);
  const heldText = owner.grants.map(grantLabel).join(", ") || "no grant";
  if (role === "admin" && !isAdmin(held))
    throw new UserFacingError(
      403,
      `${owner.username} is not an admin, so a token of theirs cannot be one (they hold ${heldText})`,
      {},
      { field: "role" },
    );
  if (role === "technician" && !holdsRole(held, ["technician"]))
    throw new UserFacingError(
      403,
      `${owner.username} holds ${heldText}, so a token of theirs cannot be a technician`,
      {},
      { field: "role" },
    );
  if (held.length === 0) throw new UserFacingError(403, `${owner.username} holds no grant, so a token of theirs could do nothing`);
  const narrowed = narrowForToken(held, { id: "", name: input.name, role, scope: read.text });
  if (narrowed.every((g) => g.parsed.empty))
    throw new UserFacingError(
      400,
      `The scope ${read.text} shares no clusters with what ${owner.username} holds (${heldText})`,
      {},
      { field: "scope" },
    );
  return { role, scope: read.text };
}

/** The role ceilings an account may give its tokens: viewer always, technician and admin when it holds them. */
export function ceilingsFor(owner: UserRecord): ("viewer" | "technician" | "admin")[] {
  const held = holdGrants(owner.grants);
  return [
    "viewer" as const,
    ...(holdsRole(held, ["technician"]) ? ["technician" as const] : []),
    ...(isAdmin(held) ? ["admin" as const] : []),
  ];
}

/** Creates a token for `owner` (the actor themselves, or a service account an admin manages). */
export async function issueToken(
  owner: UserRecord,
  input: z.output<typeof NewTokenSchema>,
  actor: Actor,
  now: Date = new Date(),
): Promise<CreatedTokenAnswer> {
  if (owner.disabled) throw new UserFacingError(409, `${owner.username} is disabled; a token of theirs would be refused`);
  const limits = checkLimits(owner, input);
  const days = Math.min(input.expiresInDays, MAX_TOKEN_DAYS);
  const secret = secretFromRandom(randomBytes(32));
  const prefix = displayPrefix(secret);
  const expiresAt = new Date(now.getTime() + days * DAY_MS);
  const created = await insertApiToken(
    {
      userId: owner.id,
      name: input.name,
      secretHash: hashSecret(secret),
      prefix,
      role: limits.role,
      scope: limits.scope,
      createdAt: now,
      expiresAt,
    },
    {
      ...auditActor(actor),
      action: "token.create",
      targetType: "token",
      targetId: `${owner.username}/${input.name}`,
      summary: `created API token ${input.name} (${prefix}…) for ${owner.username}, ${limits.role ?? "their own roles"}${limits.scope ? ` within ${limits.scope}` : ""}, expiring ${expiresAt.toISOString().slice(0, 10)}`,
      details: { owner: owner.username, prefix, role: limits.role, scope: limits.scope, expiresAt: expiresAt.toISOString() },
    },
  );
  return { ...tokenView(created, now), token: secret };
}

/** The signed-in person's own tokens. */
export async function ownTokens(actor: Actor, now: Date = new Date()): Promise<TokenAnswer[]> {
  return (await listApiTokens(actor.user.id)).map((t) => tokenView(t, now));
}

/** Revokes a token: the actor's own, or any as an admin. Someone else's is a 404, as a missing one. */
export async function revokeToken(id: string, actor: Actor, now: Date = new Date()): Promise<TokenAnswer> {
  const token = await findApiToken(id);
  if (!token || (token.userId !== actor.user.id && !isAdmin(actor.held))) throw new UserFacingError(404, "No such token");
  await revokeApiToken(id, now, {
    ...auditActor(actor),
    action: "token.revoke",
    targetType: "token",
    targetId: `${token.owner}/${token.name}`,
    summary: `revoked API token ${token.name} (${token.prefix}…) of ${token.owner}`,
    details: { owner: token.owner, prefix: token.prefix },
  });
  return tokenView((await findApiToken(id))!, now);
}

export type BearerIdentity = { user: UserRecord; token: TokenLimits } | { refused: string };

/** The value of `Authorization: Bearer …`, or null when the request carries no bearer credential. */
export function bearerOf(headers: Headers): string | null {
  const header = headers.get("authorization");
  if (header === null) return null;
  const match = /^Bearer(?:\s+(.*))?$/i.exec(header.trim());
  return match ? (match[1] ?? "").trim() : null;
}

const fmtDate = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, "Z");

/**
 * Who a bearer secret acts as, or why it is refused: malformed (without asking the database),
 * unknown, revoked, expired, or its owner disabled. The stored hash is compared in constant time
 * after the lookup. A use is recorded (at most once a minute, at once from a new address).
 */
export async function identifyBearer(secret: string, ip: string | null, now: Date = new Date()): Promise<BearerIdentity> {
  if (!isWellFormedSecret(secret))
    return {
      refused: secret.startsWith(TOKEN_PREFIX)
        ? "This API token is malformed (mistyped or cut short); copy it again, or create a new one"
        : "Authorization: Bearer takes a Fleetskew API token (fsk_…); create one on the API tokens page",
    };
  const hash = hashSecret(secret);
  const found = await findTokenBySecretHash(hash);
  if (!found || !timingSafeEqual(Buffer.from(found.secretHash, "hex"), Buffer.from(hash, "hex")))
    return { refused: "This API token is not known to Fleetskew; it may have been mistyped, or deleted with its account" };
  if (found.revokedAt) return { refused: `This API token (${found.name}) was revoked at ${fmtDate(found.revokedAt)}; create a new one` };
  if (found.expiresAt <= now) return { refused: `This API token (${found.name}) expired at ${fmtDate(found.expiresAt)}; create a new one` };
  if (found.owner.disabled) return { refused: `The account behind this API token (${found.owner.username}) is disabled` };
  await recordTokenUse(found, ip, now, {
    actor: found.owner.username,
    role: `${found.owner.role} (token ${found.name})`,
    action: "token.use",
    targetType: "token",
    targetId: `${found.owner.username}/${found.name}`,
    summary: `used API token ${found.name} from a new address${found.lastUsedIp ? ` (before: ${found.lastUsedIp})` : ""}`,
    ip,
    details: { previousIp: found.lastUsedIp },
  });
  return { user: found.owner, token: { id: found.id, name: found.name, role: found.role, scope: found.scope } };
}
