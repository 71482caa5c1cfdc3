import { invalidateFleetList } from "../fleet/fleetList";
import {
  clusterInfoFacts,
  judgeMember,
  labelsOf,
  sameLabels,
  permissionSubject,
  usableClusterName,
  type AddOnObject,
  type ClusterInfoObject,
  type ManagedClusterObject,
  type PermissionObject,
  type HubClusterState,
  type ServiceAccountObject,
} from "../domain/hubEligibility";
import { KubeError } from "../kube/client";
import {
  HUB_KINDS,
  HubClient,
  managedServiceAccount,
  PERMISSION_NAME,
  PROXY_ADDON,
  SERVICE_ACCOUNT_ADDON,
  SERVICE_ACCOUNT_NAME,
  clusterPermission,
  type HubListing,
  type HubSecret,
} from "../kube/hub";
import type { ClusterCredentials } from "../kube/credentials";
import { openSecret, sealSecret } from "../secrets/keyring";
import { sealCredentials } from "../clusters/registration";
import {
  applyHubSync,
  hubClusterState,
  recordHubSyncFailure,
  type HubMemberRecord,
  type HubOwnCluster,
  type HubRecord,
  type HubSyncWrite,
} from "../store/hubs";
import type { NewCluster } from "../store/clusters";
import {
  screenAddOns,
  screenClusterInfos,
  screenManagedClusters,
  screenPermissions,
  screenServiceAccounts,
  setAsideReason,
  type SetAside,
} from "./objects";

/** What registering a hub takes besides its name and URLs; sealed at rest, never sent back. */
export type HubSecrets = {
  ca: string;
  readerToken: string;
  proxyCa: string;
  /** With impersonation: the token of the hub service account the proxy carries to each cluster. */
  proxyToken?: string;
  /** With impersonation: the user that identity becomes on a managed cluster, the subject of every ClusterPermission. */
  proxyImpersonatedUser?: string;
};

/** The context a hub's secrets are sealed under: bound to its name. */
export const hubSecretsContext = (hub: string) => `hub:${hub}`;
const secretsContext = hubSecretsContext;
export const sealHubSecrets = (hub: string, secrets: HubSecrets) => sealSecret(JSON.stringify(secrets), secretsContext(hub));
export async function openHubSecrets(hub: HubRecord): Promise<HubSecrets> {
  return JSON.parse((await openSecret(hub.sealed, secretsContext(hub.name))).toString("utf8")) as HubSecrets;
}

/** How Fleetskew reaches one of a hub's clusters: the hub's cluster-proxy, with the proxy's token or the cluster's own account's. */
export const proxiedCredentials = (proxyUrl: string, cluster: string, token: string, proxyCa: string): ClusterCredentials => ({
  server: `${proxyUrl.replace(/\/$/, "")}/${cluster}`,
  token,
  certificateAuthority: proxyCa,
  insecureSkipTlsVerify: false,
  reach: "cluster-proxy",
});

export type SyncResult = {
  members: number;
  registered: number;
  changed: number;
  permissionsCreated: number;
  serviceAccountsCreated: number;
  /** Where watches continue from, per kind ("" when the hub does not serve it, or it is not needed). */
  resourceVersions: { managedClusters: string; addOns: string; permissions: string; infos: string; serviceAccounts: string };
  /** Per cluster, what its ManagedClusterInfo said: an info event that changes none of it needs no sync. */
  infoDigests: Map<string, string>;
};

const byNamespace = <T extends { metadata?: { namespace?: string; name?: string } }>(items: T[], name: string) =>
  new Map(items.filter((i) => i.metadata?.name === name && i.metadata.namespace).map((i) => [i.metadata!.namespace!, i]));

/** Runs `work` over `items` with at most `limit` at once. */
export async function bounded<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

const NONE: HubListing = { items: [], resourceVersion: "" };
/** A kind the hub may not serve (ManagedClusterInfo exists only with ACM/MCE): nothing to read, nothing to watch. */
const unlessNotServed = (listing: Promise<HubListing>) =>
  listing.catch((error) => {
    if (error instanceof KubeError && error.kind === "not-served") return NONE;
    throw error;
  });

/** The digest an info event is compared by: the facts Fleetskew reads from a ManagedClusterInfo. */
export const infoDigest = (info: ClusterInfoObject | undefined) =>
  JSON.stringify([info?.status?.distributionInfo?.type ?? null, clusterInfoFacts(info)]);

/** A ManagedServiceAccount's token as its Secret carries it, and which version of the Secret that is. */
type ReportedToken = { token: string; version: string };
function reportedTokens(accounts: ServiceAccountObject[], secrets: HubSecret[]): Map<string, ReportedToken> {
  const byKey = new Map(secrets.map((s) => [`${s.metadata?.namespace}/${s.metadata?.name}`, s]));
  const tokens = new Map<string, ReportedToken>();
  for (const account of accounts) {
    const ns = account.metadata?.namespace;
    if (account.metadata?.name !== SERVICE_ACCOUNT_NAME || !ns) continue;
    const secret = byKey.get(`${ns}/${account.status?.tokenSecretRef?.name ?? SERVICE_ACCOUNT_NAME}`);
    const raw = secret?.data?.token;
    if (typeof raw !== "string") continue;
    const token = Buffer.from(raw, "base64").toString("utf8").trim();
    // A token is printable ASCII; anything else is not sent anywhere.
    if (!/^[\x21-\x7e]{1,16384}$/.test(token)) continue;
    // Which Secret version it is, in a few printable characters (a hub that sends anything else gets "?").
    const part = (v: unknown) => (typeof v === "string" && /^[\x21-\x7e]{0,128}$/.test(v) ? v : "?");
    tokens.set(ns, { token, version: `${part(secret!.metadata?.uid)}/${part(secret!.metadata?.resourceVersion)}` });
  }
  return tokens;
}

/**
 * A list's objects screened page by page as they arrive (./objects.ts): only the checked fields of
 * each object are kept, and objects of a wrong shape are set aside with their reason.
 */
function screening<T>(screen: (items: unknown[]) => { kept: T[]; setAside: SetAside[] }) {
  const setAside: SetAside[] = [];
  return {
    setAside,
    page: (items: unknown[]) => {
      const screened = screen(items);
      setAside.push(...screened.setAside);
      return screened.kept;
    },
  };
}

/** What one full look at a hub read: the listings, and Fleetskew's objects per cluster namespace. */
async function readHub(own: HubClient, viaAccounts: boolean) {
  const screens = {
    clusters: screening(screenManagedClusters),
    addOns: screening(screenAddOns),
    permissions: screening(screenPermissions),
    infos: screening(screenClusterInfos),
    accounts: screening(screenServiceAccounts),
  };
  const [clusters, addOns, permissions, infos, accounts, tokenSecrets] = await Promise.all([
    own.list(HUB_KINDS.managedCluster, screens.clusters.page),
    own.list(HUB_KINDS.managedClusterAddOn, screens.addOns.page),
    own.list(HUB_KINDS.clusterPermission, screens.permissions.page),
    unlessNotServed(own.list(HUB_KINDS.managedClusterInfo, screens.infos.page)),
    viaAccounts ? own.list(HUB_KINDS.managedServiceAccount, screens.accounts.page) : NONE,
    viaAccounts ? own.serviceAccountSecrets() : [],
  ]);
  // Every object is checked before use; one of a wrong shape is set aside with its reason (./objects.ts).
  const screened = {
    clusters: { kept: clusters.items as ManagedClusterObject[], setAside: screens.clusters.setAside },
    addOns: { kept: addOns.items as AddOnObject[], setAside: screens.addOns.setAside },
    permissions: { kept: permissions.items as PermissionObject[], setAside: screens.permissions.setAside },
    infos: { kept: infos.items as ClusterInfoObject[], setAside: screens.infos.setAside },
    accounts: { kept: accounts.items as ServiceAccountObject[], setAside: screens.accounts.setAside },
  };
  const setAside = Object.values(screened).flatMap((s) => s.setAside);
  return {
    listings: { clusters, addOns, permissions, infos, accounts },
    clusters: screened.clusters.kept,
    addOnOf: byNamespace(screened.addOns.kept, PROXY_ADDON),
    accountAddOnOf: byNamespace(screened.addOns.kept, SERVICE_ACCOUNT_ADDON),
    permissionOf: byNamespace(screened.permissions.kept, PERMISSION_NAME),
    accountOf: byNamespace(screened.accounts.kept, SERVICE_ACCOUNT_NAME),
    infoOf: new Map(screened.infos.kept.filter((i) => i.metadata?.namespace).map((i) => [i.metadata!.namespace!, i])),
    tokens: reportedTokens(screened.accounts.kept, tokenSecrets),
    /** Per cluster name, the first of its objects that was set aside. */
    setAsideOf: new Map(
      setAside
        .filter((s) => s.key !== null)
        .reverse()
        .map((s) => [s.key!, s]),
    ),
    setAside,
  };
}
type HubView = Awaited<ReturnType<typeof readHub>>;
type Verdict = ReturnType<typeof judgeMember>;

/** A member one of whose objects was set aside: shown with the reason, never registered or changed on its account. */
const malformedVerdict = (hub: string, name: string, s: SetAside): Verdict => ({
  name,
  state: "available",
  eligibility: "malformed",
  reason: setAsideReason(s),
  clusterSet: null,
  labels: labelsOf({}, hub),
  openshiftClusterId: null,
  platform: null,
  wantsPermission: false,
});

function judgeMembers(hub: HubRecord, view: HubView, viaAccounts: boolean): Verdict[] {
  const judged = view.clusters.map((mc) => {
    const name = mc.metadata!.name!;
    const setAside = view.setAsideOf.get(name);
    if (setAside) return malformedVerdict(hub.name, name, setAside);
    return judgeMember(hub.name, mc, view.addOnOf.get(name), view.permissionOf.get(name), {
      info: view.infoOf.get(name),
      serviceAccount: viaAccounts
        ? { addOn: view.accountAddOnOf.get(name), account: view.accountOf.get(name), tokenReported: view.tokens.has(name) }
        : undefined,
    });
  });
  // A ManagedCluster set aside still has a name: it stays a member, with its reason.
  const rejected = view.setAside
    .filter((s) => s.kind === "ManagedCluster" && s.key !== null)
    .map((s) => malformedVerdict(hub.name, s.key!, s));
  return [...judged, ...rejected];
}

/**
 * Rights on each cluster the hub can reach; the hub applies them a little later (permissions-pending until then).
 * Without impersonation the ManagedServiceAccount comes first: the ClusterPermission names it as its subject.
 */
async function createMissingRights(own: HubClient, verdicts: Verdict[], view: HubView, secrets: HubSecrets, viaAccounts: boolean) {
  const wanted = verdicts.filter((v) => v.wantsPermission && v.state !== "removed");
  let permissionsCreated = 0;
  let serviceAccountsCreated = 0;
  await bounded(
    wanted.filter((v) => !view.permissionOf.has(v.name) || (viaAccounts && !view.accountOf.has(v.name))),
    16,
    async (v) => {
      if (viaAccounts && !view.accountOf.has(v.name))
        if ((await own.createIn(HUB_KINDS.managedServiceAccount, v.name, managedServiceAccount(v.name))) === "created")
          serviceAccountsCreated++;
      if (view.permissionOf.has(v.name)) return;
      const subject = viaAccounts
        ? permissionSubject(v.name, { mode: "managed-service-account", account: SERVICE_ACCOUNT_NAME })
        : permissionSubject(v.name, { mode: "impersonation", user: secrets.proxyImpersonatedUser ?? "" });
      if ((await own.createIn(HUB_KINDS.clusterPermission, v.name, clusterPermission(v.name, subject))) === "created") permissionsCreated++;
    },
  );
  return { permissionsCreated, serviceAccountsCreated };
}

/** The token a cluster is reached with, and which credential that is (null version: the hub's own proxy token). */
type Credential = { token: string; version: string | null };
type ClusterState = Awaited<ReturnType<typeof hubClusterState>>;

/** A member as the database keeps it: eligible unless its name is taken or unusable in Fleetskew. */
function memberRecord(v: Verdict, state: ClusterState, view: HubView): HubMemberRecord {
  const taken = state.takenByOthers.has(v.name) || !usableClusterName(v.name);
  const eligibility = taken && v.eligibility === "eligible" ? "name-taken" : v.eligibility;
  const reason =
    eligibility === "name-taken"
      ? usableClusterName(v.name)
        ? `a cluster named ${v.name} is already registered in Fleetskew some other way`
        : `${v.name} cannot be a Fleetskew cluster name (lower-case letters, digits and dashes, at most 63)`
      : v.reason;
  return {
    name: v.name,
    state: v.state,
    eligibility,
    reason,
    clusterSet: v.clusterSet,
    labels: v.labels,
    registeredAs: state.own.has(v.name) ? v.name : eligibility === "eligible" ? v.name : null,
    ...clusterInfoFacts(view.infoOf.get(v.name)),
  };
}

/** What changes for a cluster Fleetskew already has from this hub; undefined when nothing does. */
async function changeOf(
  hub: HubRecord,
  v: Verdict,
  mine: HubOwnCluster,
  credential: Credential | null,
  secrets: HubSecrets,
): Promise<HubSyncWrite["change"][number] | undefined> {
  // The hub registered again at another proxy URL, or the cluster's account token rotated: the cluster follows.
  // (An account whose token is gone keeps the last one until a new one is reported.)
  const expected = credential ? proxiedCredentials(hub.proxyUrl, v.name, credential.token, secrets.proxyCa) : null;
  const reach =
    expected && credential && (mine.apiUrl !== expected.server || mine.credentialsVersion !== credential.version)
      ? {
          apiUrl: expected.server,
          encryptedCredentials: await sealCredentials(v.name, expected),
          credentialsVersion: credential.version,
        }
      : undefined;
  if (reach || mine.hubState !== v.state || !sameLabels(mine.labels, v.labels))
    return { name: v.name, hubState: v.state, labels: v.labels, reach };
  return undefined;
}

async function newCluster(hub: HubRecord, v: Verdict, credential: Credential, secrets: HubSecrets): Promise<NewCluster> {
  const credentials = proxiedCredentials(hub.proxyUrl, v.name, credential.token, secrets.proxyCa);
  return {
    name: v.name,
    displayName: v.name,
    labels: v.labels,
    platform: v.platform,
    apiUrl: credentials.server,
    encryptedCredentials: await sealCredentials(v.name, credentials),
    openshiftClusterId: v.openshiftClusterId,
    hubId: hub.id,
    hubState: "available",
    hubCredentialsVersion: credential.version,
  };
}

/** Brings the database in step with the hub's verdicts: members, clusters to register, clusters that changed. */
async function planHubWrite(
  hub: HubRecord,
  verdicts: Verdict[],
  view: HubView,
  state: ClusterState,
  credentialOf: (name: string) => Credential | null,
  secrets: HubSecrets,
): Promise<HubSyncWrite> {
  const members: HubMemberRecord[] = [];
  const register: NewCluster[] = [];
  const change: HubSyncWrite["change"] = [];
  const seen = new Set<string>();
  for (const v of verdicts) {
    seen.add(v.name);
    const mine = state.own.get(v.name);
    if (v.eligibility === "malformed") {
      // Nothing is concluded from a malformed object: a cluster already followed stays as it was.
      const kept = mine ? { state: (mine.hubState ?? "available") as HubClusterState, labels: mine.labels, registeredAs: v.name } : {};
      members.push({ ...memberRecord(v, state, view), registeredAs: null, ...clusterInfoFacts(undefined), ...kept });
      continue;
    }
    const member = memberRecord(v, state, view);
    members.push(member);
    const credential = credentialOf(v.name);
    if (mine) {
      const changed = await changeOf(hub, v, mine, credential, secrets);
      if (changed) change.push(changed);
    } else if (member.eligibility === "eligible" && credential) register.push(await newCluster(hub, v, credential, secrets));
  }
  // Gone from the hub: removed, history kept, never swept again.
  for (const [name, mine] of state.own) {
    if (seen.has(name)) continue;
    members.push({
      name,
      state: "removed",
      eligibility: "unavailable",
      reason: "deleted from the hub",
      clusterSet: mine.labels["cluster.open-cluster-management.io/clusterset"] ?? null,
      labels: mine.labels,
      registeredAs: name,
      ...clusterInfoFacts(undefined),
    });
    if (mine.hubState !== "removed") change.push({ name, hubState: "removed", labels: mine.labels });
  }
  return { members, register, change };
}

/**
 * What a failed sync shows every viewer of the hub: what the hub did, in the client's words; our
 * own failures (the database, a bug) only as such, their details in the server's log.
 */
export function syncFailureText(hub: HubRecord, error: unknown): string {
  if (error instanceof KubeError) return error.message;
  console.error(`fleetskew: hub ${hub.name}: sync failed:`, error);
  return "the hub's objects could not be stored (a problem on Fleetskew's side; the server log has the details)";
}

/**
 * One full look at a hub: lists its managed clusters, their info and add-ons and Fleetskew's
 * ClusterPermissions (and, without impersonation, Fleetskew's ManagedServiceAccounts and their
 * token Secrets), creates what is still missing, and brings the hub's members and clusters in the
 * database in step (new eligible clusters registered, lease-expired ones paused, deleted ones
 * marked removed with their history kept, rotated tokens sealed again).
 */
export async function syncHub(hub: HubRecord, client?: HubClient): Promise<SyncResult> {
  const secrets = await openHubSecrets(hub);
  const own = client ?? new HubClient({ apiUrl: hub.apiUrl, ca: secrets.ca, readerToken: secrets.readerToken });
  const viaAccounts = hub.access === "managed-service-account";
  try {
    own.startRead();
    const view = await readHub(own, viaAccounts).finally(() => own.endRead());
    const verdicts = judgeMembers(hub, view, viaAccounts);
    const created = await createMissingRights(own, verdicts, view, secrets, viaAccounts);
    const credentialOf = (name: string): Credential | null =>
      viaAccounts ? (view.tokens.get(name) ?? null) : { token: secrets.proxyToken ?? "", version: null };
    const state = await hubClusterState(
      hub.id,
      verdicts.map((v) => v.name),
    );
    const write = await planHubWrite(hub, verdicts, view, state, credentialOf, secrets);
    await applyHubSync(hub.id, write, { actor: `hub:${hub.name}`, role: "system" });
    if (write.register.length > 0 || write.change.length > 0) invalidateFleetList();
    const { clusters, addOns, permissions, infos, accounts } = view.listings;
    return {
      members: write.members.length,
      registered: write.register.length,
      changed: write.change.length,
      ...created,
      resourceVersions: {
        managedClusters: clusters.resourceVersion,
        addOns: addOns.resourceVersion,
        permissions: permissions.resourceVersion,
        infos: infos.resourceVersion,
        serviceAccounts: accounts.resourceVersion,
      },
      infoDigests: new Map([...view.infoOf].map(([name, info]) => [name, infoDigest(info)])),
    };
  } catch (error) {
    await recordHubSyncFailure(hub.id, syncFailureText(hub, error)).catch(() => undefined);
    throw error;
  } finally {
    if (!client) own.close();
  }
}
