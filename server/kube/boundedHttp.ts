import * as k8s from "@kubernetes/client-node";
import fetch, { type Response } from "node-fetch";
import { describeBytes, MAX_ANSWER_BYTES, MAX_ERROR_BYTES, type ReadBudget } from "./limits";

/**
 * How every request Fleetskew makes to a cluster or hub travels: @kubernetes/client-node builds the
 * request (URL, credentials, body), this sends it. Unlike the library's own sender (node-fetch with
 * its default `redirect: "follow"`, dist/gen/http/isomorphic-fetch.js), it never follows a redirect:
 * node-fetch would send a 307's PATCH again, body and bearer token included, wherever the Location
 * points, and one managed cluster behind a hub's proxy could point at another. And it refuses an
 * answer larger than MAX_ANSWER_BYTES while it arrives, before it is held or parsed.
 */

/** A failure of the transport itself, which the client turns into a KubeError (client.ts classify). */
export class TransportError extends Error {
  override name = "TransportError";
  constructor(
    readonly kind: "redirected" | "too-large",
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Where a redirect pointed, in words safe to store and show: scheme, host and path, no query, no control characters. */
export function describeLocation(location: string | null, base: string): string {
  if (!location) return "nowhere (no Location header)";
  try {
    const url = new URL(location, base);
    return `${url.protocol}//${url.host}${url.pathname}`.replace(/[^\x21-\x7e]/g, "?").slice(0, 300);
  } catch {
    return "an address that is not a URL";
  }
}

export function redirectError(method: string, requestUrl: string, status: number, location: string | null): TransportError {
  const path = new URL(requestUrl).pathname;
  return new TransportError(
    "redirected",
    `${method} ${path} was answered ${status}, a redirect to ${describeLocation(location, requestUrl)}; Fleetskew follows no redirect from a cluster or hub`,
    status,
  );
}

export const tooLargeError = (what: string, limit: number) =>
  new TransportError("too-large", `${what} is larger than ${describeBytes(limit)}, the most Fleetskew reads in one answer`);

/** Reads a response body up to `limit` bytes; beyond it the request is aborted (`abort`) and a too-large error thrown. */
export async function readBounded(response: Response, limit: number, what: string, abort: () => void): Promise<Buffer> {
  if (Number(response.headers.get("content-length") ?? NaN) > limit) {
    abort();
    throw tooLargeError(what, limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      abort();
      throw tooLargeError(what, limit);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

export type AnswerObserver = (bytes: number) => void;

export class BoundedHttpLibrary implements k8s.HttpLibrary {
  constructor(
    private readonly onAnswer?: AnswerObserver,
    private readonly budget?: ReadBudget,
  ) {}

  /** The most one answer may hold (a single object's reads go through ./directGet.ts with their own). */
  private readonly maxBytes = MAX_ANSWER_BYTES;

  send(request: k8s.RequestContext): k8s.Observable<k8s.ResponseContext> {
    return new k8s.Observable(this.sendNow(request));
  }

  private async sendNow(request: k8s.RequestContext): Promise<k8s.ResponseContext> {
    const method = request.getHttpMethod().toString();
    const url = request.getUrl();
    const own = new AbortController();
    const deadline = request.getSignal() as AbortSignal | undefined;
    const signal = own.signal;
    const abort = () => own.abort();
    if (deadline?.aborted) own.abort();
    else deadline?.addEventListener("abort", abort, { once: true });
    try {
      return await this.exchange(method, url, signal, abort, request);
    } finally {
      // The deadline's timer lives on for its whole length: left attached, this listener would keep
      // the request, and through it the answer's body, alive that long after the answer was read.
      deadline?.removeEventListener("abort", abort);
    }
  }

  private async exchange(
    method: string,
    url: string,
    signal: AbortSignal,
    abort: () => void,
    request: k8s.RequestContext,
  ): Promise<k8s.ResponseContext> {
    const response = await fetch(url, {
      method,
      body: request.getBody() as string | undefined,
      headers: request.getHeaders(),
      signal: signal as never,
      agent: request.getAgent(),
      redirect: "manual",
      compress: true,
      size: this.maxBytes,
    });
    if (response.status >= 300 && response.status < 400) {
      abort();
      throw redirectError(method, url, response.status, response.headers.get("location"));
    }
    const ok = response.status >= 200 && response.status < 300;
    const what = `the answer to ${method} ${new URL(url).pathname}`;
    const declared = Number(response.headers.get("content-length") ?? NaN);
    if (declared > this.maxBytes) {
      abort();
      throw tooLargeError(what, this.maxBytes);
    }
    // node-fetch counts the body against `size` (below) as it arrives and stops at it; the connection is then aborted.
    let body = await response.buffer().catch((error: { type?: string }) => {
      if (error?.type === "max-size") {
        abort();
        throw tooLargeError(what, this.maxBytes);
      }
      throw error;
    });
    if (ok && this.budget && !this.budget.take(body.length)) throw new TransportError("too-large", this.budget.message);
    // An error's Status is read only for its message: a short prefix of a long one is enough.
    if (!ok && body.length > MAX_ERROR_BYTES)
      body = Buffer.from(`{"message":"the cluster's error answer is over ${describeBytes(MAX_ERROR_BYTES)}"}`);
    if (ok) this.onAnswer?.(body.length);
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => (headers[name] = value));
    return new k8s.ResponseContext(response.status, headers, {
      text: async () => body.toString("utf8"),
      binary: async () => body,
    });
  }
}

const sharedLibrary = new BoundedHttpLibrary();

/** An API client of the library whose requests go through BoundedHttpLibrary (KubeConfig.makeApiClient, with another sender). */
export function boundedApiClient<T>(kc: k8s.KubeConfig, apiClientType: new (config: k8s.Configuration) => T): T {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error("the kubeconfig has no cluster");
  const config = k8s.createConfiguration({
    baseServer: new k8s.ServerConfiguration(cluster.server, {}),
    authMethods: { default: kc },
    httpApi: sharedLibrary,
  });
  return new apiClientType(config);
}
