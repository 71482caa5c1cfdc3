import { createHash } from "node:crypto";
import https from "node:https";
import tls from "node:tls";
import * as k8s from "@kubernetes/client-node";
import { BoundedHttpLibrary, type AnswerObserver } from "./boundedHttp";
import { type ConnectTo } from "./connectTo";
import type { ClusterCredentials } from "./credentials";
import { ReadBudget, type ListLimits } from "./limits";

/*
 * How a ClusterClient is set up and reaches a cluster: its options (deadline, retries, list limits,
 * where Route hosts connect), the kubeconfig made from the stored credentials, and the HTTPS options
 * of each request, with TLS contexts shared across clusters of one CA. client.ts sends through them.
 */
export type ClientOptions = {
  /** Per request. */
  timeoutMs: number;
  /** Extra attempts for reads that failed in a way that may pass (timeouts, 5xx, resets). */
  retries: number;
  retryDelayMs: number;
  /** How far one list may go (server/kube/limits.ts); the defaults unless a test narrows them. */
  listLimits?: ListLimits;
  /** Where connections to Route hosts go instead of what DNS says (FLEETSKEW_CONNECT_TO; ./connectTo.ts). */
  connectTo?: ConnectTo[];
  /**
   * Keep the kinds readers mark watchable current with watches on the cluster's HTTP/2 connection
   * (./watchedCollection.ts), for clients that live from sweep to sweep (the collector's): for at
   * most this many clusters of the process (FLEETSKEW_KUBE_WATCH_CLUSTERS), each holding its
   * connection and some twenty streams open. None when 0 or absent. A function is asked at each
   * sweep: the collector's answers 0 while its shard holds more clusters than the limit (a cluster
   * watched then costs more memory than it saves CPU; docs/architecture.md, "Watched reads").
   */
  watchClusters?: number | (() => number);
};

export const DEFAULT_CLIENT_OPTIONS: ClientOptions = { timeoutMs: 10_000, retries: 2, retryDelayMs: 300 };

/** The options for work on registered clusters, as FLEETSKEW_KUBE_TIMEOUT_MS and FLEETSKEW_KUBE_RETRIES configure them. */
export const configuredClientOptions = (kube: { timeoutMs: number; retries: number; connectTo?: ConnectTo[] }): ClientOptions => ({
  timeoutMs: kube.timeoutMs,
  retries: kube.retries,
  retryDelayMs: DEFAULT_CLIENT_OPTIONS.retryDelayMs,
  ...(kube.connectTo?.length ? { connectTo: kube.connectTo } : {}),
});

export function kubeConfigFor(credentials: ClusterCredentials): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  const b64 = (text: string | undefined) => (text ? Buffer.from(text).toString("base64") : undefined);
  kc.loadFromOptions({
    clusters: [
      {
        name: "cluster",
        server: credentials.server,
        caData: b64(credentials.certificateAuthority),
        skipTLSVerify: credentials.insecureSkipTlsVerify,
      },
    ],
    users: [
      { name: "user", token: credentials.token, certData: b64(credentials.clientCertificateData), keyData: b64(credentials.clientKeyData) },
    ],
    contexts: [{ name: "context", cluster: "cluster", user: "user" }],
    currentContext: "context",
  });
  return kc;
}

/**
 * TLS contexts by CA and client certificate, the most recently used kept. Without one, Node builds a
 * new context, parsing the CA bundle again, for every connection; clusters that share a CA (a fleet
 * behind one PKI, a hub's proxy) share it. A context costs some 19 KB of resident memory and 0.6 ms of
 * CPU to build (docs/benchmarks.md, "What a collector holds between sweeps"): kept for every cluster's
 * API server and Route, 10,000 clusters' contexts would hold 380 MiB. So few are kept, and a client
 * asks for its context when it connects, not once for its lifetime; a connection holds its own
 * context while open (a watched cluster's).
 */
export const MAX_KEPT_CONTEXTS = 256;
export const secureContexts = new Map<string, tls.SecureContext>();
function keptContext(key: string, make: () => tls.SecureContext): tls.SecureContext {
  let context = secureContexts.get(key);
  if (context) secureContexts.delete(key);
  else context = make();
  secureContexts.set(key, context);
  if (secureContexts.size > MAX_KEPT_CONTEXTS) secureContexts.delete(secureContexts.keys().next().value!);
  return context;
}

export function secureContextFor(c: ClusterCredentials): tls.SecureContext {
  const key = createHash("sha256")
    .update(`${c.certificateAuthority ?? ""}\0${c.clientCertificateData ?? ""}\0${c.clientKeyData ?? ""}`)
    .digest("base64");
  return keptContext(key, () =>
    tls.createSecureContext({ ca: c.certificateAuthority, cert: c.clientCertificateData, key: c.clientKeyData }),
  );
}

/** A TLS context that trusts `ca` alone (the default roots when empty), kept like secureContextFor's. */
export function caContextFor(ca: string): tls.SecureContext {
  return keptContext(`ca:${createHash("sha256").update(ca).digest("base64")}`, () => tls.createSecureContext(ca ? { ca } : {}));
}

/**
 * Options for one call of a generated API: a deadline that aborts the request, the connection pool
 * when there is one, and optionally a Content-Type (patches). The generated methods take them as
 * their second argument; the first is the call's parameters, `{}` when it has none.
 */
export function requestOptions(
  timeoutMs: number,
  agent?: https.Agent,
  contentType?: string,
  onAnswer?: AnswerObserver,
  budget?: ReadBudget,
): k8s.ConfigurationOptions {
  // The object-style APIs take observable middleware (the library's own Observable), as setHeaderOptions builds.
  const middleware: k8s.ObservableMiddleware = {
    pre: (context) => {
      context.setSignal(AbortSignal.timeout(timeoutMs));
      if (agent && context.getUrl().startsWith("https:")) context.setAgent(agent);
      if (contentType) context.setHeaderParam("Content-Type", contentType);
      return new k8s.Observable(Promise.resolve(context));
    },
    post: (response) => new k8s.Observable(Promise.resolve(response)),
  };
  // Every request goes through the bounded sender (no redirects, answers capped); this one also reports each answer's size.
  return {
    middleware: [middleware],
    middlewareMergeStrategy: "append",
    ...(onAnswer || budget ? { httpApi: new BoundedHttpLibrary(onAnswer, budget) } : {}),
  };
}
