import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { Duplex } from "node:stream";
import type tls from "node:tls";
import { setMaxListeners } from "node:events";
import * as k8s from "@kubernetes/client-node";
import { boundedApiClient, TransportError, type AnswerObserver } from "./boundedHttp";
import { connectTarget, hostPort } from "./connectTo";
import { publicOnlyLookup, REFUSED_ADDRESS } from "./publicAddress";
import type { ClusterCredentials } from "./credentials";
import { AnswerStatusError, getJson, type H2Requests } from "./directGet";
import { H2Origin } from "./h2";
import { proxyConnections, type ProxyConnections } from "./proxyConnections";
import { NotServedMemo } from "./notServed";
import { CacheBudget, WatchedCollection } from "./watchedCollection";
import { DEFAULT_LIST_LIMITS, describeBytes, MAX_ANSWER_BYTES, MAX_OBJECT_BYTES, ReadBudget, type ListLimits } from "./limits";
import { caContextFor, type ClientOptions, DEFAULT_CLIENT_OPTIONS, kubeConfigFor, requestOptions, secureContextFor } from "./clientConfig";

/** A kind Fleetskew reads or writes, by its REST coordinates. */
export type KindRef = { group: string; version: string; plural: string; kind: string; namespaced: boolean };

export type KubeErrorKind =
  | "not-served" // the API server does not have this resource (an older OpenShift)
  | "not-found"
  | "unauthorized"
  | "forbidden"
  | "conflict"
  | "invalid"
  | "unreachable"
  | "timeout"
  | "server-error"
  | "malformed"
  | "redirected" // a 3xx: never followed (docs/security.md)
  | "too-large"; // over one of the read limits (server/kube/limits.ts)

/** A failed call to a cluster, classified so callers can say what happened in plain words. */
export class KubeError extends Error {
  override name = "KubeError";
  constructor(
    readonly kind: KubeErrorKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/**
 * What the readers need of a cluster: a live one (ClusterClient) or objects captured from one
 * (CapturedCluster). Failures are KubeErrors either way.
 */
export interface ObjectSource {
  get(ref: KindRef, name: string, namespace?: string, options?: WatchOption): Promise<unknown>;
  list(ref: KindRef, options?: { namespace?: string; labelSelector?: string } & WatchOption): Promise<unknown[]>;
  /** Kinds a live cluster said it does not serve, not asked again until its release changes (./notServed.ts). */
  readonly notServed?: NotServedMemo;
}

/**
 * `watch`: the reader may be answered from a watched copy (./watchedCollection.ts) when the client
 * keeps them (ClientOptions.watchClusters): the kind's list and watch are granted (docs/rbac.md).
 */
export type WatchOption = { watch?: boolean };

/**
 * How much one cluster's watched collections may hold in memory, compressed (./watchedCollection.ts).
 * A cluster past it (tens of thousands of nodes) is listed every sweep instead, as before watches.
 */
const MAX_CACHED_BYTES = 16 * 1024 * 1024;

/**
 * Clients of this process that keep watches, each holding its cluster's connection open between
 * sweeps. At most half the process's open-file limit (Linux's soft RLIMIT_NOFILE, as /proc/self/limits
 * gives it), less room for the database and the web server: the clients beyond it read as before.
 */
const watchingClients = new Set<ClusterClient>();
export const MAX_WATCHING_CLIENTS = (() => {
  try {
    const soft = /^Max open files\s+(\S+)/m.exec(readFileSync("/proc/self/limits", "utf8"))?.[1];
    const files = soft === "unlimited" ? Infinity : Number(soft);
    if (files > 0) return Math.max(0, Math.min(50_000, Math.floor(files / 2) - 256));
  } catch {
    // not Linux: the fallback below
  }
  return 1_024;
})();

/** How long a cluster that refused a watch (or the list of one object by name) is read without one. */
const NOT_WATCHED_MS = 60 * 60_000;

/** How long a client's other reads wait for its first request on first contact (see ClusterClient.read). */
const FIRST_CONTACT_WAIT_MS = 500;

const RETRYABLE = new Set<KubeErrorKind>(["unreachable", "timeout", "server-error", "malformed"]);
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  "ETIMEDOUT",
]);

function statusBody(body: unknown): { message?: string; reason?: string; details?: { name?: string } } {
  if (typeof body === "string") {
    try {
      return JSON.parse(body);
    } catch {
      return { message: body.slice(0, 300) };
    }
  }
  return (body ?? {}) as { message?: string };
}

/** Turns whatever the client threw into a KubeError. `what` names the request for messages. */
export function classify(error: unknown, what: string): KubeError {
  if (error instanceof KubeError) return error;
  if (error instanceof TransportError) return new KubeError(error.kind, `${error.message} (${what})`, error.status);
  const e = error as { code?: number | string; body?: unknown; name?: string; message?: string; type?: string; cause?: { code?: string } };
  if (typeof e.code === "number") {
    const body = statusBody(e.body);
    const message = body.message ?? `HTTP ${e.code}`;
    if (e.code === 401) return new KubeError("unauthorized", `the cluster refused the credentials (401) for ${what}`, 401);
    if (e.code === 403) return new KubeError("forbidden", message, 403);
    if (e.code === 404) {
      // A missing object names itself in the Status details; a missing resource type does not.
      return body.details?.name
        ? new KubeError("not-found", message, 404)
        : new KubeError("not-served", `${what} is not available on this cluster`, 404);
    }
    if (e.code === 409) return new KubeError("conflict", message, 409);
    if (e.code === 422 || e.code === 400) return new KubeError("invalid", message, e.code);
    if (e.code >= 500) return new KubeError("server-error", `the cluster answered ${e.code} for ${what}: ${message}`, e.code);
    return new KubeError("server-error", `the cluster answered ${e.code} for ${what}: ${message}`, e.code);
  }
  if (e.name === "AbortError" || e.type === "aborted" || e.name === "TimeoutError")
    return new KubeError("timeout", `no answer from the cluster for ${what} in time`);
  const code = typeof e.code === "string" ? e.code : e.cause?.code;
  if (code === REFUSED_ADDRESS)
    return new KubeError("unreachable", `${what} was not sent: ${(e.message ?? "").replace(/^.*reason: /, "")}`);
  if (code && (NETWORK_CODES.has(code) || code.startsWith("ERR_HTTP2_")))
    return new KubeError("unreachable", `cannot reach the cluster (${code}) for ${what}`);
  if (code && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/.test(code)) {
    return new KubeError("unreachable", `the cluster's TLS certificate is not trusted (${code}); add its CA bundle`);
  }
  if (error instanceof SyntaxError || /JSON|Unexpected (end|token)/.test(e.message ?? "")) {
    return new KubeError("malformed", `the cluster sent a response that is not valid JSON for ${what}`);
  }
  if (e.type === "system" || e.name === "FetchError")
    return new KubeError("unreachable", `cannot reach the cluster for ${what}: ${e.message}`);
  return new KubeError("server-error", `${what} failed: ${e.message ?? String(error)}`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One page of a list as the API server answers it. */
export type ListPage = { items?: unknown[]; metadata?: { _continue?: string; continue?: string; resourceVersion?: string } };

/**
 * Follows a list's `continue` tokens within `limits` (server/kube/limits.ts): past its pages, items or
 * bytes the list fails as too-large, naming the limit, and what it had gathered is dropped.
 * `fetchPage` reads one page and reports its answer's size to `onAnswer`.
 */
export async function collectPages(
  what: string,
  source: "cluster" | "hub",
  limits: ListLimits,
  fetchPage: (token: string | undefined, onAnswer: AnswerObserver) => Promise<ListPage>,
  /** What of a page's objects to keep (the fields the caller reads): the rest of each page is dropped as it arrives. */
  keep: (items: unknown[]) => unknown[] = (items) => items,
): Promise<{ items: unknown[]; resourceVersion: string }> {
  const items: unknown[] = [];
  let bytes = 0;
  let pages = 0;
  let token: string | undefined;
  let resourceVersion = "";
  const tooLarge = (limit: string) =>
    new KubeError("too-large", `the ${source}'s ${what} goes past ${limit}, the most Fleetskew reads in one list`);
  do {
    if (pages >= limits.maxPages) throw tooLarge(`${limits.maxPages} pages`);
    const page = await fetchPage(token, (size) => (bytes += size));
    pages++;
    if (!page || !Array.isArray(page.items)) throw new KubeError("malformed", `the ${source}'s answer to the ${what} has no items`);
    if (items.length + page.items.length > limits.maxItems) throw tooLarge(`${limits.maxItems} objects`);
    if (bytes > limits.maxBytes) throw tooLarge(describeBytes(limits.maxBytes));
    for (const item of keep(page.items)) items.push(item);
    token = page.metadata?._continue || page.metadata?.continue || undefined;
    // The first page's version is the list's snapshot; later pages continue that same snapshot.
    resourceVersion ||= page.metadata?.resourceVersion ?? "";
  } while (token);
  return { items, resourceVersion };
}

/**
 * Objects per page of a list. Rendered MachineConfigs are the largest objects Fleetskew reads (up
 * to etcd's 1.5 MiB each), so their pages are small enough that a full page stays under
 * MAX_ANSWER_BYTES; everything else comes 500 at a time.
 */
const pageSizeOf = (ref: KindRef) => (ref.plural === "machineconfigs" ? 16 : 500);

/**
 * One GET outside the generated API clients (a Route, cluster-proxy's service path), through the same
 * bounded sender: no redirects followed, the answer capped and counted against the read budget, a
 * deadline. A non-2xx answer becomes the KubeError of its status; the body is parsed as JSON.
 */
async function plainGet(
  what: string,
  url: string,
  options: {
    agent: https.Agent;
    h2?: H2Requests;
    headers: Record<string, string>;
    timeoutMs: number;
    budget: ReadBudget;
    signal: AbortSignal;
  },
): Promise<unknown> {
  try {
    return await getJson(new URL(url), { ...options, maxBytes: MAX_ANSWER_BYTES });
  } catch (error) {
    if (!(error instanceof AnswerStatusError)) {
      if (error instanceof SyntaxError) throw new KubeError("malformed", `the answer to ${what} is not valid JSON`);
      throw classify(error, what);
    }
    const status = error.code;
    // Whatever answers here is not an API server: its body may be a Status, plain text or a router's HTML page.
    const message = plainMessage(error.body);
    const kind: KubeErrorKind =
      status === 401
        ? "unauthorized"
        : status === 403
          ? "forbidden"
          : status === 404
            ? "not-found"
            : status >= 500
              ? "server-error"
              : "invalid";
    throw new KubeError(kind, `${what} was answered ${status}${message ? `: ${message}` : ""}`, status);
  }
}

/** A short, printable message from an error answer: a Status's message, else its first line of text without markup. */
function plainMessage(text: string): string {
  const status = statusBody(text);
  const raw = typeof status.message === "string" ? status.message : "";
  const line = raw.includes("<") ? raw.replace(/<[^>]*>/g, " ") : raw;
  return line
    .replace(/[^\x20-\x7e]+/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 200);
}

/**
 * Closes a pool's connections that no request is using (`agent.freeSockets`); those in use finish
 * their requests. The agent stays usable and opens new ones on demand.
 */
function closeIdleSockets(agent: http.Agent): void {
  for (const sockets of Object.values(agent.freeSockets)) for (const socket of [...(sockets ?? [])]) socket.destroy();
}

/**
 * An HTTPS connection pool that asks for its TLS context when it opens a connection, and so holds
 * none between connections: a context is some 19 KB of resident memory (./clientConfig.ts
 * MAX_KEPT_CONTEXTS), and a collector keeps a pool per cluster.
 */
class ContextOnConnectAgent extends https.Agent {
  constructor(
    options: https.AgentOptions,
    private readonly context: () => tls.SecureContext,
  ) {
    super(options);
  }

  override createConnection(options: https.RequestOptions, callback?: (err: Error | null, stream: Duplex) => void) {
    // Passed on to tls.connect, which takes a context (https.RequestOptions does not declare it).
    const withContext: https.RequestOptions & Pick<tls.ConnectionOptions, "secureContext"> = { ...options, secureContext: this.context() };
    return super.createConnection(withContext, callback);
  }
}

/**
 * A read's abort controller. Each GET in flight listens on its signal until answered: a sweep's
 * twenty-odd at once pass Node's warning at ten, a bound that still flags listeners left behind.
 */
function newReading(): AbortController {
  const controller = new AbortController();
  setMaxListeners(256, controller.signal);
  return controller;
}

/**
 * One cluster's API, through @kubernetes/client-node. Reads retry a bounded number of times;
 * writes never retry on their own (a 409 is the caller's to resolve by re-reading).
 */
export class ClusterClient implements ObjectSource {
  // The generated clients serve writes, discovery and /version; a sweep's reads go around them
  // (./directGet.ts). Made on first use: a collector keeps a client per cluster, and most never write.
  private generated?: { custom: k8s.CustomObjectsApi; core: k8s.CoreV1Api; versionApi: k8s.VersionApi };
  private get api() {
    if (!this.generated) {
      const kc = kubeConfigFor(this.credentials);
      this.generated = {
        custom: boundedApiClient(kc, k8s.CustomObjectsApi),
        core: boundedApiClient(kc, k8s.CoreV1Api),
        versionApi: boundedApiClient(kc, k8s.VersionApi),
      };
    }
    return this.generated;
  }
  /**
   * The cluster's HTTP/1.1 connection pool (the library would open a new TLS connection per request):
   * for writes, discovery and /version, and reads from a server that does not speak HTTP/2. Made on
   * first use; like the Route's, it asks for the cluster's TLS context when it connects.
   */
  private pool?: https.Agent;
  private get agent(): https.Agent {
    return (this.pool ??= new ContextOnConnectAgent(
      {
        keepAlive: true,
        // A sweep's reads share two connections: each new one costs a TLS handshake on both sides, and
        // with a sweep every few minutes every sweep opens them anew (measured in docs/benchmarks.md).
        maxSockets: 2,
        rejectUnauthorized: !this.credentials.insecureSkipTlsVerify,
      },
      () => secureContextFor(this.credentials),
    ));
  }
  /** What the current sweep has read from this cluster (MAX_READ_BYTES); `startRead` begins a new one. */
  private readonly budget = new ReadBudget("cluster");
  /** Ended with the read (`endRead`, `close`): its GETs not yet answered are dropped (./directGet.ts `signal`). */
  private reading = newReading();
  /** The cluster's HTTP/2 connection for reads and watches, while its server speaks HTTP/2 (./h2.ts); none behind a hub. */
  private readonly h2: H2Origin | undefined;
  /** The connections to the hub's cluster-proxy this cluster is reached through, shared with the hub's other clusters (./proxyConnections.ts). */
  private readonly proxy: ProxyConnections | undefined;
  /** Where a read's HTTP/2 streams come from: the hub proxy's shared connections, or the cluster's own. */
  private get reads(): H2Requests | undefined {
    return this.proxy?.h2 ?? this.h2;
  }
  readonly notServed = new NotServedMemo();
  /** Kinds kept current by watches on the HTTP/2 connection, by collection (ClientOptions.watchClusters). */
  private readonly watched = new Map<string, WatchedCollection>();
  private readonly cacheBudget = new CacheBudget(MAX_CACHED_BYTES);
  /** This read's check that the connection carrying the watches still answers (asked once a sweep). */
  private connectionCheck: Promise<boolean> | null = null;
  /** Collections the cluster refused to let be watched, or listed by name (RBAC narrower than docs/rbac.md), until when. */
  private readonly notWatched = new Map<string, number>();

  constructor(
    private readonly credentials: ClusterCredentials,
    readonly options: ClientOptions = DEFAULT_CLIENT_OPTIONS,
  ) {
    const server = new URL(credentials.server);
    if (server.protocol === "https:" && credentials.reach === "cluster-proxy")
      this.proxy = proxyConnections(credentials, options.timeoutMs);
    else if (server.protocol === "https:")
      this.h2 = new H2Origin(server, {
        secureContext: () => secureContextFor(credentials),
        rejectUnauthorized: !credentials.insecureSkipTlsVerify,
        timeoutMs: options.timeoutMs,
      });
  }

  /** Per-request options: a deadline, the pooled connections, and optionally a Content-Type (patches). */
  private requestOptions(contentType?: string): k8s.ConfigurationOptions {
    return requestOptions(this.options.timeoutMs, this.agent, contentType, undefined, this.budget);
  }

  /** Begins a new read of this cluster (a sweep): from here its answers count afresh against MAX_READ_BYTES. */
  startRead(): void {
    this.reading.abort();
    this.reading = newReading();
    this.budget.restart();
    this.notServed.startSweep();
    this.connectionCheck = null;
    // The limit went to 0 since the last sweep (the collector's shard outgrew it): the watches go.
    if (this.holdsWatches && this.watchLimit() <= 0) this.stopWatching();
  }

  /**
   * Ends a read of this cluster: what it read no longer counts against the process
   * (MAX_PROCESS_READ_BYTES), and what it still waits for is given up (a sweep past its deadline).
   */
  endRead(): void {
    this.reading.abort();
    this.budget.release();
    // The next sweep is minutes away, past the API server's idle timeout: the connections go now (the
    // HTTP/2 one stays while it carries watches). Kept, each is a socket and its TLS state on both ends
    // between sweeps, some 55 KB of the collector's resident memory: half a GiB at 10,000 clusters
    // (docs/benchmarks.md, "What a collector holds between sweeps"). A watched cluster keeps its
    // Route's connection too: its steady sweep sends nothing else, and a new TLS connection to the
    // Route would add about 3 ms of CPU to its 6; watched clusters are bounded by
    // FLEETSKEW_KUBE_WATCH_CLUSTERS. The pools stay, with their TLS sessions, so a new connection
    // resumes one.
    this.closeIdleConnections();
  }

  /**
   * Stops keeping watches between reads (the collector's shard outgrew its watch limit) and closes the
   * connections they held open. Called between reads; a read in progress would list what it needs.
   */
  unwatch(): void {
    if (!this.holdsWatches) return;
    this.stopWatching();
    this.h2?.closeWithStreams();
    this.closeIdleConnections();
  }

  private closeIdleConnections(): void {
    // A hub proxy's connections are shared with the hub's other clusters: they close when idle (./proxyConnections.ts).
    this.h2?.close();
    for (const agent of [this.pool, this.plainHttpAgent]) if (agent) closeIdleSockets(agent);
    if (this.route && !watchingClients.has(this)) closeIdleSockets(this.route.agent);
  }

  /** Closes the pooled connections; the client must not be used afterwards. */
  close(): void {
    this.reading.abort();
    this.budget.release();
    this.stopWatching();
    this.proxy?.release();
    this.h2?.destroy();
    this.pool?.destroy();
    this.plainHttpAgent?.destroy();
    this.route?.agent.destroy();
  }

  /**
   * Settled once this client's first request has: until then its other reads wait. A sweep asks for
   * some twenty objects at once, and on first contact both pooled connections would each make a full
   * TLS handshake (the server's signature, the client's check of its certificate). After the first
   * answer the second connection resumes the first's TLS session instead (the agent keeps it), which
   * skips both (docs/benchmarks.md, "A first sweep's CPU"). The wait ends with the first attempt,
   * answered or not, or after FIRST_CONTACT_WAIT_MS, so a cluster that does not answer costs at most
   * that much more time (waiting for its first attempt to time out doubled a timing-out sweep).
   */
  private firstContact: Promise<void> | null = null;

  private async read<T>(what: string, call: () => Promise<T>): Promise<T> {
    const first = { settle: () => {} };
    if (this.firstContact === null) {
      this.firstContact = new Promise<void>((resolve) => (first.settle = resolve));
      setTimeout(first.settle, FIRST_CONTACT_WAIT_MS).unref();
    } else await this.firstContact;
    for (let attempt = 0; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        first.settle();
        const failure = classify(error, what);
        if (!RETRYABLE.has(failure.kind) || attempt >= this.options.retries || this.reading.signal.aborted) throw failure;
        await sleep(this.options.retryDelayMs * 2 ** attempt);
      } finally {
        first.settle();
      }
    }
  }

  /** A read of one kind: answered from memory when the cluster said it does not serve the kind. */
  private async readKind<T>(ref: KindRef, what: string, call: () => Promise<T>): Promise<T> {
    const known = this.notServed.known(ref);
    if (known) throw known;
    try {
      return await this.read(what, call);
    } catch (error) {
      if (error instanceof KubeError) this.notServed.remember(ref, error);
      throw error;
    }
  }

  private async write<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw classify(error, what);
    }
  }

  async version(): Promise<{ gitVersion: string }> {
    const opts = this.requestOptions();
    return this.read("/version", () => this.api.versionApi.getCode({}, opts));
  }

  /** Resource names served per group/version ("v1", "machineconfiguration.openshift.io/v1"). */
  async discovery(groupVersions: string[]): Promise<Map<string, Set<string> | null>> {
    const result = new Map<string, Set<string> | null>();
    await Promise.all(
      groupVersions.map(async (gv) => {
        try {
          const [group, version] = gv.includes("/") ? gv.split("/") : ["", gv];
          const opts = this.requestOptions();
          const list = await this.read(`discovery of ${gv}`, () =>
            group ? this.api.custom.getAPIResources({ group: group!, version: version! }, opts) : this.api.core.getAPIResources({}, opts),
          );
          result.set(gv, new Set(list.resources.map((r) => r.name)));
        } catch (error) {
          if (error instanceof KubeError && error.kind === "not-served") result.set(gv, null);
          else throw error;
        }
      }),
    );
    return result;
  }

  /** The URL of a kind's collection, or of one object in it, below this cluster's server. */
  private urlOf(ref: KindRef, namespace: string | undefined, name?: string, query?: Record<string, string | undefined>): URL {
    const segment = encodeURIComponent;
    const path = [
      ref.group ? `/apis/${segment(ref.group)}/${segment(ref.version)}` : `/api/${segment(ref.version)}`,
      namespace ? `/namespaces/${segment(namespace)}` : "",
      `/${segment(ref.plural)}`,
      name !== undefined ? `/${segment(name)}` : "",
    ].join("");
    const url = new URL(`${this.credentials.server.replace(/\/$/, "")}${path}`);
    for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) url.searchParams.set(key, value);
    return url;
  }

  /** One read through the direct sender (./directGet.ts): this cluster's connections, deadline and read budget. */
  private direct(url: URL, maxBytes: number, onAnswer?: AnswerObserver): Promise<unknown> {
    return getJson(url, {
      agent: url.protocol === "http:" ? this.plainAgent() : this.agent,
      headers: this.bearerHeaders(),
      timeoutMs: this.options.timeoutMs,
      maxBytes,
      budget: this.budget,
      onAnswer,
      signal: this.reading.signal,
      h2: this.reads,
    });
  }

  private plainHttpAgent?: http.Agent;
  /** Only a test's plain-HTTP server (a redirect's target, say) is reached without TLS. */
  private plainAgent(): http.Agent {
    return (this.plainHttpAgent ??= new http.Agent({ keepAlive: true, maxSockets: 2 }));
  }

  async get(ref: KindRef, name: string, namespace?: string, options: WatchOption = {}): Promise<unknown> {
    const what = `${ref.kind} ${namespace ? `${namespace}/` : ""}${name}`;
    const byName = `list ${ref.group}/${ref.plural}|${namespace ?? ""}|${name}`;
    if (options.watch && this.watching && !this.refusedFor(byName)) {
      try {
        // Watched as a list of the one object by name (the API server's field selector on every kind).
        const [object] = await this.watchedList(ref, namespace, `metadata.name=${name}`, what);
        // As the API server says it of a GET (apimachinery errors.NewNotFound: `<resource>.<group> "<name>" not found`).
        if (object === undefined)
          throw new KubeError("not-found", `${ref.plural}${ref.group ? `.${ref.group}` : ""} "${name}" not found`, 404);
        return object;
      } catch (error) {
        // Granted `get` of the one object only: asked for by name, as without watches.
        if (!(error instanceof KubeError && error.kind === "forbidden")) throw error;
        this.notWatched.set(byName, Date.now() + NOT_WATCHED_MS);
      }
    }
    // One object: anything over what etcd can hold is refused as it arrives (MAX_OBJECT_BYTES).
    const url = this.urlOf(ref, namespace, name);
    return this.readKind(ref, what, () => this.direct(url, MAX_OBJECT_BYTES));
  }

  /** Every object of a kind (following `continue`), optionally in one namespace or matching labels. */
  async list(
    ref: KindRef,
    options: { namespace?: string; labelSelector?: string; pageSize?: number; firstPageOnly?: boolean } & WatchOption = {},
  ): Promise<unknown[]> {
    const what = `${ref.kind} list`;
    if (options.watch && this.watching && !options.labelSelector && !options.firstPageOnly && !options.pageSize)
      return this.watchedList(ref, options.namespace, undefined, what);
    return (await this.listPages(ref, options, what)).items;
  }

  private listPages(
    ref: KindRef,
    options: { namespace?: string; labelSelector?: string; fieldSelector?: string; pageSize?: number; firstPageOnly?: boolean },
    what: string,
  ): Promise<{ items: unknown[]; resourceVersion: string }> {
    const limit = String(options.pageSize ?? pageSizeOf(ref));
    const query = { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector, limit };
    return collectPages(what, "cluster", this.options.listLimits ?? DEFAULT_LIST_LIMITS, async (token, onAnswer) => {
      const url = this.urlOf(ref, options.namespace, undefined, { ...query, continue: token });
      const page = (await this.readKind(ref, what, () => this.direct(url, MAX_ANSWER_BYTES, onAnswer))) as ListPage;
      // Only whether the list is allowed (a connection test): one page, its `continue` not followed.
      return options.firstPageOnly && page?.metadata
        ? { ...page, metadata: { ...page.metadata, continue: undefined, _continue: undefined } }
        : page;
    });
  }

  /**
   * Whether this client keeps watched copies. Not of a cluster behind a hub: every watch would hold a
   * tunnel of the hub's cluster-proxy open (some twenty a cluster, thousands of clusters a hub), where a
   * sweep's reads hold one for the sweep.
   */
  private get watching(): boolean {
    const limit = this.watchLimit();
    return (
      limit > 0 &&
      this.credentials.reach !== "cluster-proxy" &&
      (watchingClients.has(this) || watchingClients.size < Math.min(MAX_WATCHING_CLIENTS, limit))
    );
  }

  private watchLimit(): number {
    const limit = this.options.watchClusters;
    return typeof limit === "function" ? limit() : (limit ?? 0);
  }

  private get holdsWatches(): boolean {
    return this.watched.size > 0 || watchingClients.has(this);
  }

  /** Stops this client's watches and frees their copies: its reads list again, and its connections close at the read's end. */
  private stopWatching(): void {
    for (const collection of this.watched.values()) collection.stop();
    this.watched.clear();
    watchingClients.delete(this);
  }

  private refusedFor(key: string): boolean {
    const until = this.notWatched.get(key);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.notWatched.delete(key);
    return false;
  }

  /**
   * A collection read from its watched copy while the watch is open and the connection answers;
   * else listed, and watched from the list's version on (over HTTP/2 only: a watch on HTTP/1.1
   * would hold a connection of its own). What the reader gets is what a list would have given.
   */
  private async watchedList(ref: KindRef, namespace: string | undefined, fieldSelector: string | undefined, what: string) {
    const key = `${ref.group}/${ref.plural}|${namespace ?? ""}|${fieldSelector ?? ""}`;
    const kept = this.watched.get(key);
    if (kept?.current && (await (this.connectionCheck ??= this.h2!.alive(this.options.timeoutMs))) && kept.current) return kept.items();
    // Not allowed to watch (list granted, watch not): one list a sweep, without asking to watch each time.
    if (kept?.refused) this.notWatched.set(key, Date.now() + NOT_WATCHED_MS);
    kept?.stop();
    this.watched.delete(key);
    const listed = await this.listPages(ref, { namespace, fieldSelector }, what);
    const h2 = this.h2;
    // Only on an open HTTP/2 connection (a server that speaks HTTP/1.1 alone is listed every sweep).
    if (h2?.connected && !this.reading.signal.aborted && !this.refusedFor(key)) {
      const path = this.urlOf(ref, namespace, undefined, { fieldSelector }).pathname;
      const headers = this.bearerHeaders();
      const collection = new WatchedCollection(
        listed.items,
        listed.resourceVersion,
        this.cacheBudget,
        (resourceVersion) => {
          // No timeoutSeconds: the API server picks 30 to 60 minutes (its --min-request-timeout, 1,800 s, times 1 to 2).
          const query = new URLSearchParams({ watch: "1", resourceVersion, allowWatchBookmarks: "true" });
          if (fieldSelector) query.set("fieldSelector", fieldSelector);
          return h2.openStream({ ":method": "GET", ":path": `${path}?${query}`, ...headers });
        },
        this.options.listLimits ?? DEFAULT_LIST_LIMITS,
      );
      if (collection.start()) {
        this.watched.set(key, collection);
        watchingClients.add(this);
      }
    }
    return listed.items;
  }

  /**
   * GET `path` below this cluster's own server URL, outside the Kubernetes API: cluster-proxy's
   * service path (`<proxy>/<cluster>/api/v1/namespaces/<ns>/services/<scheme:name:port>/proxy-service/<path>`,
   * docs/acm.md §2), which hands the request, bearer token included, to a Service on the cluster.
   * The same connections, deadline, answer size and read budget as every read; one attempt.
   */
  async serverGet(path: string): Promise<unknown> {
    const base = this.credentials.server.replace(/\/$/, "");
    return plainGet(`GET ${path.split("?")[0]}`, `${base}${path}`, {
      agent: this.agent,
      h2: this.reads,
      headers: this.bearerHeaders(),
      timeoutMs: this.options.timeoutMs,
      budget: this.budget,
      signal: this.reading.signal,
    });
  }

  /**
   * GET `https://<host><path>`: a Route of the cluster, reached through its ingress as `oc` reaches one
   * (openshift/oc pkg/cli/admin/inspectalerts `GetAlerts`: the session's bearer token and TLS settings).
   * The ingress certificate is trusted if the cluster's CA bundle or `ingressCa` (the cluster's
   * published ingress CA) signed it. `connectTo` (FLEETSKEW_CONNECT_TO) may send the connection to
   * another address; the TLS name and Host stay the Route's. Without it the host's addresses are
   * checked at connect (./publicAddress.ts). One attempt, bounded like every read.
   */
  async routeGet(host: string, path: string, ingressCa?: string): Promise<unknown> {
    const target = connectTarget(this.options.connectTo ?? [], host, 443);
    // Sent where the operator's FLEETSKEW_CONNECT_TO says, as asked; else only to an address that is
    // not loopback, link-local or unspecified, checked on what the name resolves to at connect.
    const mapped = target.host !== host || target.port !== 443;
    const ca = [this.credentials.certificateAuthority, ingressCa].filter(Boolean).join("\n");
    return plainGet(`GET https://${host}${path}`, `https://${hostPort(target.host, target.port)}${path}`, {
      agent: this.routeAgent(host, target, mapped, ca),
      headers: { ...this.bearerHeaders(), host },
      timeoutMs: this.options.timeoutMs,
      budget: this.budget,
      signal: this.reading.signal,
    });
  }

  /** The Route's connection pool, kept while the Route's host, address and CA stay the same (its connection closes at a read's end). */
  private route?: { key: string; agent: https.Agent };
  private routeAgent(host: string, target: { host: string; port: number }, mapped: boolean, ca: string): https.Agent {
    // Kept per cluster, so the CA (a kilobyte or more) goes in as a digest.
    const key = JSON.stringify([host, target.host, target.port, createHash("sha256").update(ca).digest("base64")]);
    if (this.route?.key === key) return this.route.agent;
    this.route?.agent.destroy();
    const agent = new ContextOnConnectAgent(
      {
        keepAlive: true,
        maxSockets: 1,
        ...(mapped ? {} : { lookup: publicOnlyLookup }),
        servername: host,
        rejectUnauthorized: !this.credentials.insecureSkipTlsVerify,
      },
      () => caContextFor(ca),
    );
    this.route = { key, agent };
    return agent;
  }

  /** Whether this client authenticates with a bearer token (Thanos behind kube-rbac-proxy accepts nothing else). */
  get hasToken(): boolean {
    return Boolean(this.credentials.token);
  }

  /** Whether this cluster is reached through an ACM hub's cluster-proxy (server/hubs/sync.ts proxiedCredentials). */
  get throughClusterProxy(): boolean {
    return this.credentials.reach === "cluster-proxy";
  }

  private bearerHeaders(): Record<string, string> {
    return { accept: "application/json", ...(this.credentials.token ? { authorization: `Bearer ${this.credentials.token}` } : {}) };
  }

  async create(ref: KindRef, body: unknown): Promise<unknown> {
    const opts = this.requestOptions();
    return this.write(`create ${ref.kind}`, () =>
      this.api.custom.createClusterCustomObject({ group: ref.group, version: ref.version, plural: ref.plural, body: body as object }, opts),
    );
  }

  async delete(ref: KindRef, name: string): Promise<void> {
    const opts = this.requestOptions();
    await this.write(`delete ${ref.kind} ${name}`, () =>
      this.api.custom.deleteClusterCustomObject({ group: ref.group, version: ref.version, plural: ref.plural, name }, opts),
    );
  }

  /** JSON merge patch of a cluster-scoped object; include metadata.resourceVersion to make it conditional. */
  async mergePatch(ref: KindRef, name: string, patch: unknown): Promise<unknown> {
    const opts = this.requestOptions(k8s.PatchStrategy.MergePatch);
    return this.write(`patch ${ref.kind} ${name}`, () =>
      this.api.custom.patchClusterCustomObject(
        { group: ref.group, version: ref.version, plural: ref.plural, name, body: patch as object },
        opts,
      ),
    );
  }
}
