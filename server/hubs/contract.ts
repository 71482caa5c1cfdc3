/**
 * What the ACM hub endpoints of /api/v1 take and send (docs/acm.md), defined once: route handlers
 * bind to these endpoints, the browser calls them, the OpenAPI document is made from them. Imports
 * zod and pure modules only, so the browser may import it.
 */
import { z } from "zod";
import { checkCaBundle, checkServerUrl, CredentialsError } from "../domain/credentialText";
import { endpoint, isoDate } from "../http/endpoint";

const Pem = (what: string) =>
  z
    .string()
    .max(64 * 1024, `${what} is at most 64 KiB`)
    .transform((text, ctx) => {
      try {
        const pem = checkCaBundle(text);
        if (!pem) ctx.addIssue({ code: "custom", message: `${what} is required: the PEM of the CA that signed its certificate` });
        return pem ?? "";
      } catch (error) {
        ctx.addIssue({ code: "custom", message: `${what}: ${(error as Error).message}` });
        return z.NEVER;
      }
    });

const Url = z
  .string()
  .max(2048)
  .transform((text, ctx) => {
    try {
      return checkServerUrl(text);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: error instanceof CredentialsError ? error.message : "not a URL" });
      return z.NEVER;
    }
  });

const Token = z
  .string()
  .trim()
  .min(1, "a token is required")
  .max(16 * 1024)
  .regex(/^[\x21-\x7e]+$/, "a token is printable characters without spaces");

const HUB_ACCESS = ["impersonation", "managed-service-account"] as const;

export const RegisterHubSchema = z
  .object({
    name: z
      .string()
      .trim()
      .regex(
        /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/,
        "Name may use lower-case letters, digits and dashes (at most 63), starting and ending with a letter or digit",
      ),
    apiUrl: Url,
    ca: Pem("The hub's CA"),
    readerToken: Token,
    proxyUrl: Url,
    /** Defaults to the hub's CA (a Route signed by the same CA); on the hub itself it is the service CA. */
    proxyCa: z
      .string()
      .max(64 * 1024)
      .optional(),
    /**
     * How the clusters are reached through the proxy (docs/acm.md §4): impersonating one hub service
     * account (MCE 2.9 and later), or one ManagedServiceAccount per cluster (older hubs); "auto"
     * decides by the hub's MultiClusterEngine version.
     */
    access: z.enum(["auto", ...HUB_ACCESS]).default("auto"),
    proxyToken: Token.optional(),
    proxyImpersonatedUser: z
      .string()
      .trim()
      .max(253)
      .regex(/^[\w:.@-]+$/, "a Kubernetes user name, like cluster:hub:system:serviceaccount:fleetskew:fleetskew-hub-proxy")
      .optional(),
    concurrency: z.coerce.number().int().min(1).max(500).default(20),
  })
  .superRefine((hub, ctx) => {
    if (hub.access !== "impersonation") return;
    if (!hub.proxyToken)
      ctx.addIssue({ code: "custom", path: ["proxyToken"], message: "impersonation needs the proxy service account's token" });
    if (!hub.proxyImpersonatedUser)
      ctx.addIssue({
        code: "custom",
        path: ["proxyImpersonatedUser"],
        message: "impersonation needs the user the proxy's identity becomes on a managed cluster",
      });
  });
export type RegisterHubRequest = z.input<typeof RegisterHubSchema>;

const ADMINS_ONLY = "Admins only; null for everyone else";

/**
 * A registered hub: how it syncs and how many clusters; never a credential. Where it is (its API
 * and proxy URLs, which name hosts inside the company's network) and who registered it only to admins.
 */
export const HubSummarySchema = z
  .strictObject({
    name: z.string(),
    apiUrl: z.string().nullable().meta({ description: ADMINS_ONLY }),
    proxyUrl: z.string().nullable().meta({ description: ADMINS_ONLY }),
    access: z.enum(HUB_ACCESS),
    concurrency: z.number().int(),
    createdAt: isoDate(),
    createdBy: z.string().nullable().meta({ description: ADMINS_ONLY }),
    lastSyncAt: isoDate().nullable(),
    lastSyncStatus: z.enum(["pending", "ok", "error"]),
    lastSyncError: z.string().nullable(),
    counts: z.strictObject({
      total: z.number().int(),
      eligible: z.number().int(),
      ineligible: z.number().int(),
      offline: z.number().int(),
      removed: z.number().int(),
    }),
  })
  .meta({ id: "HubSummary" });
export type HubSummary = z.output<typeof HubSummarySchema>;

/** One managed cluster the hub reported, followed or with the first reason it is not (docs/acm.md §6). */
export const HubMemberSchema = z
  .strictObject({
    name: z.string(),
    state: z.enum(["available", "lease-expired", "removed"]),
    eligibility: z.enum([
      "eligible",
      "not-openshift",
      "hosted-control-plane",
      "unavailable",
      "proxy-addon-unavailable",
      "permissions-pending",
      "name-taken",
      "malformed",
    ]),
    reason: z.string().nullable(),
    clusterSet: z.string().nullable(),
    labels: z.record(z.string(), z.string()),
    registeredAs: z.string().nullable().meta({ description: "The fleet cluster it is followed as" }),
    version: z.string().nullable().meta({ description: "What its ManagedClusterInfo says; null: not reported, or not OpenShift" }),
    desiredVersion: z.string().nullable(),
    upgradeFailed: z.boolean(),
    nodes: z.number().int().nullable(),
    readyNodes: z.number().int().nullable(),
  })
  .meta({ id: "HubMember" });
export type HubMemberRecord = z.output<typeof HubMemberSchema>;

const HubParams = z.object({ name: z.string().min(1) });

export const hubEndpoints = {
  list: endpoint({
    method: "GET",
    path: "/api/v1/hubs",
    summary: "The registered ACM hubs with their sync status and cluster counts",
    description: "No credential of a hub is ever sent; its URLs and who registered it only to admins.",
    access: "any",
    answer: z.strictObject({ hubs: z.array(HubSummarySchema) }),
  }),
  register: endpoint({
    method: "POST",
    path: "/api/v1/hubs",
    summary: "Register an ACM hub",
    description:
      "The reader token must list the hub's managed clusters and the cluster-proxy URL must answer over TLS (422 otherwise); nothing is saved when a check fails. The hub's clusters then arrive in the background. See docs/acm.md.",
    access: ["admin"],
    body: RegisterHubSchema,
    maxBodyBytes: 256 * 1024,
    status: 201,
    errors: [409, 422],
    answer: z.strictObject({ hub: HubSummarySchema }),
  }),
  detail: endpoint({
    method: "GET",
    path: "/api/v1/hubs/{name}",
    summary: "A hub and every managed cluster it reported, followed or with the first reason it is not",
    access: "any",
    params: HubParams,
    answer: z.strictObject({ hub: HubSummarySchema, clusters: z.array(HubMemberSchema) }),
  }),
  remove: endpoint({
    method: "DELETE",
    path: "/api/v1/hubs/{name}",
    summary: "Forget a hub: its clusters stay, marked removed, with their history",
    description:
      "The ClusterPermissions (and ManagedServiceAccounts) Fleetskew created on the hub are deleted, best effort: when the hub cannot be reached they stay, and `permissionsLeft` says so.",
    access: ["admin"],
    params: HubParams,
    answer: z.strictObject({
      clusters: z.number().int().meta({ description: "How many of the fleet's clusters came from this hub" }),
      permissionsLeft: z.string().nullable(),
    }),
  }),
  resync: endpoint({
    method: "POST",
    path: "/api/v1/hubs/{name}/resync",
    summary: "List the hub again now and bring its clusters in step; answers when done",
    access: ["admin"],
    params: HubParams,
    errors: [404, 502],
    answer: z.strictObject({ resynced: z.string() }),
  }),
};

export type HubList = z.output<typeof hubEndpoints.list.answer>;
export type HubDetail = z.output<typeof hubEndpoints.detail.answer>;
export type RemovedHub = z.output<typeof hubEndpoints.remove.answer>;
export type RegisteredHub = z.output<typeof hubEndpoints.register.answer>;
