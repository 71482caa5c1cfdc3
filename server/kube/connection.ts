import { ClusterClient, KubeError } from "./client";
import type { ClusterCredentials } from "./credentials";
import { groupVersionOf, KINDS, QUERIER_ACCESS, READS } from "./kinds";
import { readAlerts, readClusterVersion, readInfrastructure } from "./readers";
import type { ClientOptions } from "./clientConfig";

export type ServedKind = { kind: string; groupVersion: string; served: boolean };
export type MissingPermission = { verb: string; resource: string; group: string; namespace?: string; message: string };

export type ConnectionReport = {
  reachable: boolean;
  authenticated: boolean;
  kubernetesVersion: string | null;
  openshiftVersion: string | null;
  platform: string | null;
  /** ClusterVersion spec.clusterID: the cluster's identity, whatever URL or credentials reach it. */
  clusterId: string | null;
  served: ServedKind[];
  forbidden: MissingPermission[];
  /** What went wrong first, in words, when the connection is not usable. */
  problem: string | null;
};

/**
 * Tests a cluster the way an admin would: can we reach it, do the credentials work, which version
 * is it, which of Fleetskew's kinds does it serve, and which reads are forbidden (verb + resource).
 */
export async function testConnection(credentials: ClusterCredentials, options?: Partial<ClientOptions>): Promise<ConnectionReport> {
  const client = new ClusterClient(credentials, { timeoutMs: 8_000, retries: 0, retryDelayMs: 0, ...options });
  try {
    return await probe(client);
  } finally {
    client.close();
  }
}

async function probe(client: ClusterClient): Promise<ConnectionReport> {
  const report: ConnectionReport = {
    reachable: false,
    authenticated: false,
    kubernetesVersion: null,
    openshiftVersion: null,
    platform: null,
    clusterId: null,
    served: [],
    forbidden: [],
    problem: null,
  };
  try {
    report.kubernetesVersion = (await client.version()).gitVersion;
    report.reachable = true;
  } catch (error) {
    const e = error as KubeError;
    // /version is public on OpenShift; a 401/403 there still means the server answered.
    if (e.kind === "unauthorized" || e.kind === "forbidden") report.reachable = true;
    else {
      report.problem = e.message;
      return report;
    }
  }
  const groupVersions = [...new Set(Object.values(KINDS).map(groupVersionOf))];
  let discovery: Map<string, Set<string> | null>;
  try {
    discovery = await client.discovery(groupVersions);
    report.authenticated = true;
  } catch (error) {
    report.problem = (error as KubeError).message;
    return report;
  }
  const kindsInReads = [...new Set(READS.map((r) => r.kind))];
  report.served = kindsInReads.map((name) => {
    const ref = KINDS[name];
    return { kind: ref.kind, groupVersion: groupVersionOf(ref), served: discovery.get(groupVersionOf(ref))?.has(ref.plural) ?? false };
  });

  await Promise.all(
    READS.map(async (read) => {
      const ref = KINDS[read.kind];
      if (!discovery.get(groupVersionOf(ref))?.has(ref.plural)) return;
      for (const verb of read.verbs) {
        try {
          if (verb === "get") await client.get(ref, read.names![0]!, read.namespace);
          else await client.list(ref, { namespace: read.namespace, pageSize: 1, firstPageOnly: true });
        } catch (error) {
          if (error instanceof KubeError && error.kind === "forbidden") {
            report.forbidden.push({ verb, resource: ref.plural, group: ref.group, namespace: read.namespace, message: error.message });
          }
        }
      }
    }),
  );
  // The alerts (docs/rbac.md, "Firing alerts"): only the querier's refusal of the token is a missing
  // permission; an ingress Fleetskew cannot reach is the read's reason, not a permission.
  const alerts = await readAlerts(client);
  if (alerts.status === "unknown" && alerts.failure?.at === "querier" && alerts.failure.status === 403 && !/allowlist/.test(alerts.reason))
    report.forbidden.push({
      verb: "get",
      resource: QUERIER_ACCESS.resource,
      group: QUERIER_ACCESS.group,
      namespace: QUERIER_ACCESS.namespace,
      message: alerts.reason,
    });
  report.forbidden.sort((a, b) => `${a.resource}${a.verb}`.localeCompare(`${b.resource}${b.verb}`));

  const [cv, infra] = await Promise.all([readClusterVersion(client), readInfrastructure(client)]);
  if (cv.status === "ok") {
    report.openshiftVersion = cv.value.status?.history?.[0]?.version ?? cv.value.status?.desired?.version ?? null;
    report.clusterId = cv.value.spec?.clusterID ?? null;
  }
  if (infra.status === "ok") report.platform = infra.value.status?.platformStatus?.type ?? infra.value.status?.platform ?? null;
  if (!report.openshiftVersion) report.problem = "this does not look like an OpenShift cluster: it has no readable ClusterVersion";
  return report;
}

export { KubeError };
