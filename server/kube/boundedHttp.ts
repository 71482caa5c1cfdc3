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

/**
 * Reads a response body up to `limit` bytes, each chunk also counted against `budget` when there is
 * one; past either the connection is cut and a too-large error thrown.
 */
export async function readBounded(
  response: Response,
  limit: number,
  what: string,
  budget?: ReadBudget,
  abort?: () => void,
): Promise<Buffer> {
  const declared = Number(response.headers.get("content-length") ?? NaN);
  const body = response.body as NodeJS.ReadableStream & { destroy?: (e?: Error) => void };
  // Aborting the request closes its connection; destroying only the body would leave the socket
  // held in the keep-alive pool, starving the cluster's next requests until their deadline.
  const cut = () => (abort ? abort() : body.destroy?.());
  if (declared > limit) {
    cut();
    throw tooLargeError(what, limit);
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    body.on("data", (chunk: Buffer) => {
      size += chunk.length;
      const overBudget = budget ? !budget.take(chunk.length) : false;
      if (size > limit || overBudget) {
        body.removeAllListeners("data");
        reject(overBudget ? new TransportError("too-large", budget!.message) : tooLargeError(what, limit));
        cut();
      } else chunks.push(chunk);
    });
    body.once("error", (error) => reject(error));
    body.once("end", () => resolve(Buffer.concat(chunks, size)));
  });
}

export type AnswerObserver = (bytes: number) => void;

export class BoundedHttpLibrary implements k8s.HttpLibrary {
  constructor(
    private readonly onAnswer?: AnswerObserver,
    private readonly budget?: ReadBudget,
  ) {}

  send(request: k8s.RequestContext): k8s.Observable<k8s.ResponseContext> {
    return new k8s.Observable(this.sendNow(request));
  }

  private async sendNow(request: k8s.RequestContext): Promise<k8s.ResponseContext> {
    const method = request.getHttpMethod().toString();
    const url = request.getUrl();
    const own = new AbortController();
    const deadline = request.getSignal() as AbortSignal | undefined;
    const signal = deadline ? AbortSignal.any([deadline, own.signal]) : own.signal;
    const abort = () => own.abort();
    const response = await fetch(url, {
      method,
      body: request.getBody() as string | undefined,
      headers: request.getHeaders(),
      signal: signal as never,
      agent: request.getAgent(),
      redirect: "manual",
      compress: true,
    });
    if (response.status >= 300 && response.status < 400) {
      abort();
      throw redirectError(method, url, response.status, response.headers.get("location"));
    }
    const ok = response.status >= 200 && response.status < 300;
    const what = `the answer to ${method} ${new URL(url).pathname}`;
    // An error's Status is read only for its message: a short prefix of a long one is enough.
    const body = ok ? await readBounded(response, MAX_ANSWER_BYTES, what, this.budget, abort) : await readPrefix(response, MAX_ERROR_BYTES, abort);
    if (ok) this.onAnswer?.(body.length);
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => (headers[name] = value));
    return new k8s.ResponseContext(response.status, headers, {
      text: async () => body.toString("utf8"),
      binary: async () => body,
    });
  }
}

async function readPrefix(response: Response, limit: number, abort: () => void): Promise<Buffer> {
  try {
    return await readBounded(response, limit, "an error answer", undefined, abort);
  } catch (error) {
    if (error instanceof TransportError) return Buffer.from(`{"message":"the cluster's error answer is over ${describeBytes(limit)}"}`);
    throw error;
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
