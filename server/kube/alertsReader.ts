import { z } from "zod";
import { KubeError, type ObjectSource } from "./client";
import { KINDS } from "./kinds";
import * as S from "./schemas";

/**
 * Where the cluster's firing alerts come from (docs/openshift.md §27.3): the platform Thanos querier
 * (openshift/cluster-monitoring-operator assets/thanos-querier: Service `thanos-querier`, port `web`
 * 9091, a kube-rbac-proxy that accepts only bearer tokens; Route `thanos-querier`, path `/api`).
 *
 * - Reached directly: as `oc adm upgrade recommend` reads them (openshift/oc
 *   pkg/cli/admin/inspectalerts `GetAlerts`): the Route's `status.ingress[].host`, then
 *   `https://<host>/api/v1/alerts` with the same bearer token, the first host that answers wins.
 *   The ingress certificate is trusted if the cluster's CA or its published ingress CA
 *   (openshift-config-managed/default-ingress-cert `ca-bundle.crt`, cluster-ingress-operator
 *   certificate-publisher) signed it.
 * - Reached through an ACM hub: cluster-proxy's service path
 *   (`/<cluster>/api/v1/namespaces/openshift-monitoring/services/https:thanos-querier:9091/proxy-service/api/v1/alerts`),
 *   which passes the bearer token on unchanged (cluster-proxy pkg/serviceproxy service_proxy.go).
 *
 * The API server's own service proxy is not used: it drops the caller's Authorization header, so the
 * querier would see an anonymous request and answer 401.
 */
export const THANOS_QUERIER = {
  namespace: "openshift-monitoring",
  route: "thanos-querier",
  /** cluster-proxy's target: scheme, Service and a numeric port (its SplitSchemeNamePort builds `https://thanos-querier.openshift-monitoring.svc:9091`). */
  service: "https:thanos-querier:9091",
  alertsPath: "/api/v1/alerts",
} as const;

export const INGRESS_CA = { namespace: "openshift-config-managed", name: "default-ingress-cert", key: "ca-bundle.crt" } as const;

/** What a live cluster's client offers for the read (server/kube/client.ts ClusterClient). */
export type AlertSource = ObjectSource & {
  routeGet(host: string, path: string, ingressCa?: string): Promise<unknown>;
  serverGet(path: string): Promise<unknown>;
  readonly hasToken: boolean;
  readonly throughClusterProxy: boolean;
};

export type AlertsAnswer = z.infer<typeof S.AlertsAnswerSchema>;

/**
 * An optional read: whatever stops it (no permission, no querier, the querier refusing, an ingress
 * Fleetskew cannot reach) leaves the alerts "unknown" with the reason, and never makes the sweep fail.
 * `failure` keeps what stopped it, for the connection test to name a missing permission.
 */
export type AlertsResult =
  | { status: "ok"; value: AlertsAnswer }
  | { status: "unknown"; reason: string; failure?: { at: "route" | "querier"; kind: string; status?: number } };

const RouteSchema = z.looseObject({
  status: z.looseObject({ ingress: z.array(z.looseObject({ host: z.string().optional() })).nullish() }).nullish(),
});

/** A DNS name, not an address: a cluster's Route must not point Fleetskew's token at an IP or at this host. */
const routeHostOk = (host: string) =>
  host.length <= 253 &&
  /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/.test(host) &&
  !/^[0-9.]+$/.test(host) &&
  !/(^|\.)localhost$/.test(host);

const MAX_HOSTS = 5;
const MAX_CA_BYTES = 256 * 1024;

const live = (c: ObjectSource): c is AlertSource => "routeGet" in c && "serverGet" in c;

export async function readAlerts(c: ObjectSource): Promise<AlertsResult> {
  if (!live(c)) return { status: "unknown", reason: "alerts are read only from a live cluster" };
  if (!c.hasToken)
    return {
      status: "unknown",
      reason:
        "Fleetskew reaches this cluster with a client certificate, and the platform Thanos querier accepts only bearer tokens (`oc adm upgrade recommend` refuses such a session too)",
    };
  let at: "route" | "querier" = "querier";
  try {
    let answer: unknown;
    if (c.throughClusterProxy) {
      const { namespace, service, alertsPath } = THANOS_QUERIER;
      answer = await c.serverGet(`/api/v1/namespaces/${namespace}/services/${service}/proxy-service${alertsPath}`);
    } else {
      at = "route";
      const hosts = await routeHosts(c);
      at = "querier";
      answer = await firstAnswer(c, hosts, await ingressCa(c));
    }
    const parsed = S.AlertsAnswerSchema.safeParse(answer);
    if (!parsed.success)
      return {
        status: "unknown",
        reason: `the Thanos querier's answer has an unexpected shape (${parsed.error.issues[0]?.message ?? "invalid"})`,
      };
    return { status: "ok", value: parsed.data };
  } catch (error) {
    if (!(error instanceof KubeError)) throw error;
    return {
      status: "unknown",
      reason: reasonFor(error, at, c.throughClusterProxy),
      failure: { at, kind: error.kind, status: error.status },
    };
  }
}

// The Route and the ingress CA are read like every singleton a collector watches (docs/rbac.md grants list and watch of the name).
async function routeHosts(c: AlertSource): Promise<string[]> {
  const { namespace, route } = THANOS_QUERIER;
  const parsed = RouteSchema.safeParse(await c.get(KINDS.route, route, namespace, { watch: true }));
  if (!parsed.success) throw new KubeError("malformed", `the ${namespace}/${route} Route has an unexpected shape`);
  const named = (parsed.data.status?.ingress ?? []).map((i) => (i.host ?? "").toLowerCase()).filter(Boolean);
  const hosts = [...new Set(named)].filter(routeHostOk).slice(0, MAX_HOSTS);
  if (hosts.length === 0)
    throw new KubeError(
      "not-found",
      named.length === 0
        ? `the ${namespace}/${route} Route has no host admitted by an ingress controller`
        : `the ${namespace}/${route} Route names no host Fleetskew connects to (an address or localhost)`,
    );
  return hosts;
}

/** The cluster's published ingress CA, when it can be read; without it only the cluster's own CA is trusted. */
async function ingressCa(c: AlertSource): Promise<string | undefined> {
  try {
    const cm = (await c.get(KINDS.configMap, INGRESS_CA.name, INGRESS_CA.namespace, { watch: true })) as { data?: Record<string, unknown> };
    const pem = cm?.data?.[INGRESS_CA.key];
    return typeof pem === "string" && pem.length <= MAX_CA_BYTES && pem.includes("-----BEGIN CERTIFICATE-----") ? pem : undefined;
  } catch (error) {
    if (error instanceof KubeError) return undefined;
    throw error;
  }
}

/** As oc does: each host in turn, the first answer wins; when none answers, every host's failure is named. */
async function firstAnswer(c: AlertSource, hosts: string[], ca: string | undefined): Promise<unknown> {
  const failures: KubeError[] = [];
  for (const host of hosts) {
    try {
      return await c.routeGet(host, THANOS_QUERIER.alertsPath, ca);
    } catch (error) {
      if (!(error instanceof KubeError)) throw error;
      failures.push(error);
    }
  }
  const last = failures[failures.length - 1]!;
  if (failures.length === 1) throw last;
  throw new KubeError(
    last.kind,
    `none of the ${failures.length} hosts of the Route answered: ${failures.map((f) => f.message).join("; ")}`,
    last.status,
  );
}

function reasonFor(error: KubeError, at: "route" | "querier", throughClusterProxy: boolean): string {
  const { namespace, route } = THANOS_QUERIER;
  if (at === "route") {
    if (error.kind === "forbidden")
      return `no permission to read the ${namespace}/${route} Route (get routes.route.openshift.io): ${error.message}`;
    if (error.kind === "not-found" || error.kind === "not-served")
      return `the cluster has no ${namespace}/${route} Route (${error.message}); is cluster monitoring installed?`;
    return error.message;
  }
  if (error.kind === "unauthorized")
    return throughClusterProxy
      ? `the Thanos querier refused Fleetskew's token (401): through a hub, only a token the cluster itself knows (a ManagedServiceAccount's) is accepted (${error.message})`
      : `the Thanos querier refused Fleetskew's token (401): ${error.message}`;
  if (error.kind === "forbidden")
    return throughClusterProxy && /allowlist/.test(error.message)
      ? `the hub's cluster-proxy does not expose ${namespace}/thanos-querier (${error.message}); add it to the hub's exposed services`
      : `no permission to read alerts from the Thanos querier (get prometheuses/api "k8s" in ${namespace}, granted by cluster-monitoring-view): ${error.message}`;
  return error.message;
}
