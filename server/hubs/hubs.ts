import { FLEET_WIDE, type Reach } from "../domain/grants";
import https from "node:https";
import type { z } from "zod";
import { auditActor, type Actor } from "../auth/actor";
import { checkCaBundle } from "../kube/credentials";
import { KubeError } from "../kube/client";
import { HUB_KINDS, HubClient, PERMISSION_NAME, SERVICE_ACCOUNT_NAME } from "../kube/hub";
import { UserFacingError } from "../errors";
import { invalidateFleetList } from "../fleet/fleetList";
import {
  deleteHub,
  findHubRecord,
  HubNameTakenError,
  insertHub,
  listHubMembers,
  listHubSummaries,
  updateHubConnection,
  type HubAccess,
  type HubSummary,
} from "../store/hubs";
import type { Role } from "../domain/accounts";
import type { HubDetail, HubSummary as HubAnswer, RegisterHubSchema } from "./contract";
import { syncHubSerially } from "./follow";
import { bounded, openHubSecrets, sealHubSecrets, type HubSecrets } from "./sync";

/** The cluster-proxy impersonates hub users from MCE 2.9 (ACM 2.14) on (docs/acm.md §2). */
export function impersonatesFrom(mceVersion: string): boolean {
  const [major = 0, minor = 0] = mceVersion.split(".").map((n) => Number.parseInt(n, 10));
  return major > 2 || (major === 2 && minor >= 9);
}

/**
 * The access a registration gets: what was asked for, or with "auto" what the hub's
 * MultiClusterEngine allows (impersonation when it is 2.9 or later and a proxy token was given).
 * Asking for impersonation on an older hub is refused: every cluster would answer 401.
 */
async function resolveAccess(input: z.output<typeof RegisterHubSchema>, client: HubClient): Promise<HubAccess> {
  if (input.access === "managed-service-account") return input.access;
  if (input.access === "auto" && (!input.proxyToken || !input.proxyImpersonatedUser)) return "managed-service-account";
  // A reader without rights on MultiClusterEngines cannot tell: the proxy token given says impersonation was meant.
  const version = await client.engineVersion().catch((error) => {
    if (error instanceof KubeError && error.kind === "forbidden") return null;
    throw new UserFacingError(422, `the reader could not read the hub's MultiClusterEngine: ${hubProblem(error)}`);
  });
  if (version === null || impersonatesFrom(version)) return "impersonation";
  if (input.access === "auto") return "managed-service-account";
  throw new UserFacingError(
    422,
    `the hub runs MCE ${version}; its cluster-proxy impersonates hub users from MCE 2.9 (ACM 2.14) on, so choose ManagedServiceAccount access`,
  );
}

/**
 * Registers a hub after checking that its reader can list managed clusters and that the proxy URL
 * answers; its first sync then runs in the background. Nothing is saved when a check fails.
 */
export async function registerHub(input: z.output<typeof RegisterHubSchema>, actor: Actor): Promise<HubSummary> {
  const proxyCa = input.proxyCa?.trim() ? checkPem(input.proxyCa) : input.ca;
  const client = new HubClient({ apiUrl: input.apiUrl, ca: input.ca, readerToken: input.readerToken }, 10_000);
  let access: HubAccess;
  try {
    try {
      await client.check();
    } catch (error) {
      throw new UserFacingError(422, `the hub did not let the reader list its managed clusters: ${hubProblem(error)}`);
    }
    access = await resolveAccess(input, client);
  } finally {
    client.close();
  }
  await checkProxy(input.proxyUrl, proxyCa);
  const secrets: HubSecrets =
    access === "impersonation"
      ? {
          ca: input.ca,
          readerToken: input.readerToken,
          proxyCa,
          proxyToken: input.proxyToken,
          proxyImpersonatedUser: input.proxyImpersonatedUser,
        }
      : { ca: input.ca, readerToken: input.readerToken, proxyCa };
  try {
    await insertHub(
      {
        name: input.name,
        apiUrl: input.apiUrl,
        proxyUrl: input.proxyUrl,
        access,
        concurrency: input.concurrency,
        encryptedCredentials: await sealHubSecrets(input.name, secrets),
        createdBy: actor.user.username,
      },
      auditActor(actor),
    );
  } catch (error) {
    if (error instanceof HubNameTakenError) throw new UserFacingError(409, error.message);
    throw error;
  }
  // Its first sync is the follower's (the `hub-sync` job, in the background process, within seconds):
  // syncs run only where hubs are followed, so a hub's answers never cost the web process.
  // Registering is an admin's, over the whole fleet.
  return (await listHubSummaries(FLEET_WIDE)).find((h) => h.name === input.name)!;
}

function checkPem(text: string): string {
  try {
    return checkCaBundle(text) ?? "";
  } catch (error) {
    throw new UserFacingError(400, `The proxy's CA: ${(error as Error).message}`);
  }
}

const hubProblem = (error: unknown) =>
  error instanceof KubeError
    ? error.kind === "unauthorized"
      ? "the hub refused the reader token (401)"
      : error.kind === "forbidden"
        ? `the reader may not list ManagedClusters (403): ${error.message}`
        : error.kind === "not-served"
          ? "this API server serves no ManagedClusters: is it an ACM or MCE hub?"
          : error.message
    : (error as Error).message;

/** The user-server answers 400 for a path without a cluster: enough to know the URL and CA are right. */
async function checkProxy(proxyUrl: string, ca: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const req = https.get(`${proxyUrl}/`, { ca, timeout: 10_000 }, (res) => {
      res.resume();
      resolve();
    });
    req.on("timeout", () => req.destroy(new Error("no answer in 10 s")));
    req.on("error", (error) =>
      reject(new UserFacingError(422, `the cluster-proxy URL did not answer over TLS with the given CA: ${error.message}`)),
    );
  });
}

/** A hub as `role` may see it: where it is and who registered it only for admins (docs/security.md). */
export const hubAsSeenBy = (hub: HubSummary, role: Role): HubAnswer =>
  role === "admin" ? hub : { ...hub, apiUrl: null, proxyUrl: null, createdBy: null };

/** Every hub, its clusters counted within the reader's reach. */
export async function hubSummaries(role: Role, reach: Reach): Promise<HubAnswer[]> {
  return (await listHubSummaries(reach)).map((hub) => hubAsSeenBy(hub, role));
}

/** A hub and those of its managed clusters followed as clusters in the reader's reach (all of them for the whole fleet). */
export async function hubDetail(name: string, role: Role, reach: Reach): Promise<HubDetail> {
  const record = await findHubRecord(name);
  if (!record) throw new UserFacingError(404, `no hub named ${name}`);
  const [hubs, clusters] = await Promise.all([listHubSummaries(reach), listHubMembers(record.id, reach)]);
  return {
    hub: hubAsSeenBy(
      hubs.find((h) => h.name === name)!,
      role,
    ),
    clusters,
  };
}

/** A full sync now, in this process (the follower's next events or term pick up from there). */
export async function resyncHub(name: string): Promise<void> {
  const record = await findHubRecord(name);
  if (!record) throw new UserFacingError(404, `no hub named ${name}`);
  try {
    await syncHubSerially(record);
  } catch (error) {
    // What the hub did wrong is the hub's (a 502 naming it); anything else stays a 500 whose details are only logged.
    if (error instanceof KubeError) throw new UserFacingError(502, `the hub could not be synced: ${error.message}`);
    throw error;
  }
}

/**
 * Forgets a hub. Its clusters stay, marked removed, with their history; the ClusterPermissions (and
 * ManagedServiceAccounts) Fleetskew created on the hub are deleted (best effort: a hub that cannot
 * be reached keeps them, and the answer says so).
 */
export async function removeHub(name: string, actor: Actor): Promise<{ clusters: number; permissionsLeft: string | null }> {
  const record = await findHubRecord(name);
  if (!record) throw new UserFacingError(404, `no hub named ${name}`);
  const secrets = await openHubSecrets(record);
  // Removing is an admin's: every member's permissions on the hub go, whoever's they are.
  const members = await listHubMembers(record.id, FLEET_WIDE);
  const clusters = await deleteHub(name, auditActor(actor));
  if (clusters === null) throw new UserFacingError(404, `no hub named ${name}`);
  invalidateFleetList();
  const client = new HubClient({ apiUrl: record.apiUrl, ca: secrets.ca, readerToken: secrets.readerToken }, 10_000);
  let permissionsLeft: string | null = null;
  try {
    await bounded(
      members.filter((m) => m.state !== "removed"),
      16,
      async (m) => {
        await client.deleteFrom(HUB_KINDS.clusterPermission, m.name, PERMISSION_NAME);
        if (record.access === "managed-service-account")
          await client.deleteFrom(HUB_KINDS.managedServiceAccount, m.name, SERVICE_ACCOUNT_NAME);
      },
    );
  } catch (error) {
    permissionsLeft = `Fleetskew's ClusterPermissions${record.access === "managed-service-account" ? " and ManagedServiceAccounts" : ""} named fleetskew could not all be deleted on the hub: ${hubProblem(error)}`;
  } finally {
    client.close();
  }
  return { clusters: clusters.length, permissionsLeft };
}

/** Where a hub and its cluster-proxy are, and the credentials for each, as a simulated hub reports them. */
export type HubEndpoints = {
  hubApiUrl: string;
  ca: string;
  readerToken: string;
  proxyUrl: string;
  proxyCa: string;
  proxyToken: string;
  proxyImpersonatedUser: string;
  /** The hub's MultiClusterEngine version: before 2.9, ManagedServiceAccount access. */
  mceVersion: string;
};

/**
 * The demo's simulated hub (`FLEETSKEW_DEMO_HUB=1`), registered at start as an admin would, or
 * pointed at where the simulator serves now; its clusters arrive with the hub sync.
 */
export async function registerDemoHub(name: string, r: HubEndpoints): Promise<"registered" | "updated"> {
  const access: HubAccess = impersonatesFrom(r.mceVersion) ? "impersonation" : "managed-service-account";
  const secrets: HubSecrets = {
    ca: r.ca,
    readerToken: r.readerToken,
    proxyCa: r.proxyCa,
    ...(access === "impersonation" ? { proxyToken: r.proxyToken, proxyImpersonatedUser: r.proxyImpersonatedUser } : {}),
  };
  const sealed = await sealHubSecrets(name, secrets);
  if (await findHubRecord(name)) {
    await updateHubConnection(name, { apiUrl: r.hubApiUrl, proxyUrl: r.proxyUrl, access, encryptedCredentials: sealed });
    return "updated";
  }
  await insertHub(
    { name, apiUrl: r.hubApiUrl, proxyUrl: r.proxyUrl, access, concurrency: 20, encryptedCredentials: sealed, createdBy: "demo" },
    { actor: null, details: { reason: "demo hub" } },
  );
  return "registered";
}
