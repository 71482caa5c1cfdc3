/**
 * What the API token and service account endpoints of /api/v1 take and send. Imports zod and pure
 * modules only, so the browser may import it.
 */
import { z } from "zod";
import { ROLES } from "../domain/accounts";
import { MAX_TOKEN_DAYS } from "../domain/apiTokenSecret";
import { endpoint, isoDate } from "../http/endpoint";
import { GrantAnswer, UserAnswer, UsernameSchema } from "../auth/contract";

const TokenName = z
  .string({ error: "Give the token a name, e.g. the script or pipeline that uses it" })
  .trim()
  .min(1, "Give the token a name, e.g. the script or pipeline that uses it")
  .max(100, "The name may have at most 100 characters");

export const NewTokenSchema = z.strictObject({
  name: TokenName,
  expiresInDays: z.coerce
    .number({ error: `The expiry must be a number of days from 1 to ${MAX_TOKEN_DAYS}` })
    .int(`The expiry must be a whole number of days from 1 to ${MAX_TOKEN_DAYS}`)
    .min(1, `The expiry must be at least 1 day`)
    .max(MAX_TOKEN_DAYS, `The expiry may be at most ${MAX_TOKEN_DAYS} days; every token expires`),
  role: z
    .enum(ROLES, { error: `The role must be one of ${ROLES.join(", ")}, or left out for the owner's own roles` })
    .nullable()
    .optional()
    .meta({
      description:
        "The most the token may do: viewer or technician (admin for an admin). Absent or null: the owner's own roles (never approving).",
    }),
  scope: z
    .string({ error: "The scope must be a fleet filter such as clusterSet=edge-emea, or empty for all the owner reaches" })
    .trim()
    .max(2000, "The scope may have at most 2000 characters")
    .default("")
    .meta({
      description:
        "A fleet filter (clusterSet=…, label=…, hub=…, platform=…, name=…, joined by &): the token reaches only clusters in it and in its owner's grants. Empty: all the owner reaches.",
    }),
});
export type NewTokenRequest = z.input<typeof NewTokenSchema>;

export const TokenAnswer = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    owner: z.string().meta({ description: "The username the token acts as" }),
    prefix: z.string().meta({ description: "The first characters of the secret, to tell tokens apart (fsk_ and 6 more)" }),
    role: z.enum(ROLES).nullable().meta({ description: "The role ceiling; null: the owner's roles" }),
    scope: z.string(),
    createdAt: isoDate(),
    expiresAt: isoDate(),
    revokedAt: isoDate().nullable(),
    lastUsedAt: isoDate().nullable().meta({ description: "Recorded at most once a minute, and at once from a new address" }),
    lastUsedIp: z.string().nullable(),
    state: z.enum(["active", "expired", "revoked"]),
  })
  .meta({ id: "ApiToken" });
export type TokenAnswer = z.output<typeof TokenAnswer>;

export const CreatedTokenAnswer = TokenAnswer.extend({
  token: z
    .string()
    .meta({ description: "The secret, shown this once: send it as `Authorization: Bearer fsk_…`. Only its SHA-256 is kept." }),
}).meta({ id: "CreatedApiToken" });
export type CreatedTokenAnswer = z.output<typeof CreatedTokenAnswer>;

const TokenIdParams = z.object({ id: z.uuid("No such token") });
const ServiceAccountParams = z.object({ id: z.uuid("No such service account") });

export const ServiceAccountGrantSchema = z.strictObject({
  role: z.enum(["viewer", "technician", "admin"], {
    error: "A service account's role must be viewer, technician or admin (a service account never approves)",
  }),
  scope: z.string().trim().max(2000).default(""),
});

export const NewServiceAccountSchema = z.strictObject({
  username: UsernameSchema,
  displayName: z.string().trim().max(120).optional(),
  grants: z
    .array(ServiceAccountGrantSchema, { error: "The grants must be a list of {role, scope}" })
    .min(1, "Give the service account at least one grant, e.g. viewer over the whole fleet")
    .max(50, "A service account holds at most 50 grants"),
});
export type NewServiceAccountRequest = z.input<typeof NewServiceAccountSchema>;

export const ServiceAccountAnswer = UserAnswer.extend({
  createdBy: z.string().nullable(),
  tokens: z.array(TokenAnswer),
}).meta({ id: "ServiceAccount" });
export type ServiceAccountAnswer = z.output<typeof ServiceAccountAnswer>;

const PERSON_MANAGES_TOKENS = "manage API tokens";
const PERSON_MANAGES_ACCOUNTS = "manage service accounts";

export const tokenEndpoints = {
  list: endpoint({
    method: "GET",
    path: "/api/v1/tokens",
    summary: "Your own API tokens, with when each was created, expires and was last used (and from where); never a secret",
    access: "any",
    personOnly: PERSON_MANAGES_TOKENS,
    answer: z.strictObject({ tokens: z.array(TokenAnswer) }),
  }),
  create: endpoint({
    method: "POST",
    path: "/api/v1/tokens",
    summary: "Create an API token acting as you, narrowed to a role ceiling and a scope; the secret is in this answer only",
    description: `Every token expires (1 to ${MAX_TOKEN_DAYS} days). A token never approves, releases a wave, decides an acknowledgement or manages accounts, grants or tokens. A ceiling above what you hold is refused (403); approver is refused (400). Audited.`,
    access: "any",
    personOnly: PERSON_MANAGES_TOKENS,
    body: NewTokenSchema,
    status: 201,
    answer: CreatedTokenAnswer,
  }),
  revoke: endpoint({
    method: "DELETE",
    path: "/api/v1/tokens/{id}",
    summary: "Revoke an API token at once: your own, or (admins) anyone's",
    description: "Revoking a token already revoked answers it again unchanged. Audited.",
    access: "any",
    personOnly: PERSON_MANAGES_TOKENS,
    params: TokenIdParams,
    answer: z.strictObject({ token: TokenAnswer }),
  }),
};

export const serviceAccountEndpoints = {
  list: endpoint({
    method: "GET",
    path: "/api/v1/service-accounts",
    summary: "Service accounts, with their grants and tokens",
    access: ["admin"],
    personOnly: PERSON_MANAGES_ACCOUNTS,
    answer: z.strictObject({ serviceAccounts: z.array(ServiceAccountAnswer) }),
  }),
  create: endpoint({
    method: "POST",
    path: "/api/v1/service-accounts",
    summary: "Create a service account: an account that never signs in and acts only through its tokens",
    description: "Its grants are each a role (viewer, technician or admin) over a scope. 409 when the username is taken. Audited.",
    access: ["admin"],
    personOnly: PERSON_MANAGES_ACCOUNTS,
    body: NewServiceAccountSchema,
    status: 201,
    errors: [409],
    answer: z.strictObject({ serviceAccount: ServiceAccountAnswer }),
  }),
  disable: endpoint({
    method: "DELETE",
    path: "/api/v1/service-accounts/{id}",
    summary: "Disable a service account and revoke all its tokens at once",
    access: ["admin"],
    personOnly: PERSON_MANAGES_ACCOUNTS,
    params: ServiceAccountParams,
    answer: z.strictObject({ serviceAccount: ServiceAccountAnswer }),
  }),
  createToken: endpoint({
    method: "POST",
    path: "/api/v1/service-accounts/{id}/tokens",
    summary: "Create an API token for a service account; the secret is in this answer only",
    description: "As POST /api/v1/tokens, with the service account as the owner: its grants are the most the token may do.",
    access: ["admin"],
    personOnly: PERSON_MANAGES_ACCOUNTS,
    params: ServiceAccountParams,
    body: NewTokenSchema,
    status: 201,
    errors: [409],
    answer: CreatedTokenAnswer,
  }),
};

export { GrantAnswer, MAX_TOKEN_DAYS };
