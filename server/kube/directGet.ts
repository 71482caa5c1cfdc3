import http from "node:http";
import https from "node:https";
import { redirectError, tooLargeError, TransportError, type AnswerObserver } from "./boundedHttp";
import { describeBytes, MAX_ERROR_BYTES, type ReadBudget } from "./limits";

/*
 * The sweep's reads, sent straight through Node's HTTPS client. A steady sweep is some twenty GETs
 * per cluster, and most of their cost was the generated client around them (node-fetch, the model
 * serializer walking every object, the answer turned back into wire JSON), not the request
 * (docs/benchmarks.md, "Where a steady sweep's CPU goes"). Same rules as BoundedHttpLibrary: no
 * redirect followed, an answer refused past its size while it arrives, counted against the read
 * budget, a deadline for the whole exchange. Writes keep going through the generated client.
 */

/** A non-2xx answer, shaped as the generated client's ApiException (code and body), which client.ts `classify` reads. */
export class AnswerStatusError extends Error {
  override name = "AnswerStatusError";
  constructor(
    readonly code: number,
    readonly body: string,
  ) {
    super(`HTTP ${code}`);
  }
}

export type DirectGetOptions = {
  agent: http.Agent | https.Agent;
  headers: Record<string, string>;
  timeoutMs: number;
  /** The most the answer's body may hold. */
  maxBytes: number;
  budget?: ReadBudget;
  onAnswer?: AnswerObserver;
  /**
   * The read this GET belongs to was given up (a sweep past its deadline): a GET still waiting for
   * one of the cluster's pooled connections is never sent, and one in flight is cut, so a sweep that
   * gave up stops loading the cluster and no late answer is counted against the next sweep's budget.
   */
  signal?: AbortSignal;
};

/** The error a GET fails with when its read was given up. */
const givenUp = () => Object.assign(new Error("the read was given up"), { name: "AbortError" });

/** GET `url`; resolves to the parsed JSON of a 2xx answer, rejects with AnswerStatusError, TransportError or the socket's error. */
export function getJson(url: URL, options: DirectGetOptions): Promise<unknown> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) return reject(givenUp());
    const send = url.protocol === "http:" ? http.request : https.request;
    let settled = false;
    const onAbort = () => fail(givenUp());
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      request.destroy();
      reject(error);
    };
    const request = send(url, { method: "GET", agent: options.agent, headers: options.headers }, (response) => {
      const status = response.statusCode ?? 0;
      const path = url.pathname;
      if (status >= 300 && status < 400) return fail(redirectError("GET", url.href, status, response.headers.location ?? null));
      const ok = status >= 200 && status < 300;
      const what = `the answer to GET ${path}`;
      if (Number(response.headers["content-length"] ?? NaN) > options.maxBytes) return fail(tooLargeError(what, options.maxBytes));
      const chunks: Buffer[] = [];
      let size = 0;
      response.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxBytes) return fail(tooLargeError(what, options.maxBytes));
        // An error's Status is read only for its message: a short prefix of a long one is enough.
        if (ok || size <= MAX_ERROR_BYTES) chunks.push(chunk);
      });
      response.on("error", fail);
      // A connection closed before the answer's end: a cut answer, never parsed as whole.
      response.on("close", () => fail(Object.assign(new Error("the connection closed before the answer ended"), { code: "ECONNRESET" })));
      response.on("end", () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        if (!ok) {
          const body =
            size > MAX_ERROR_BYTES
              ? `{"message":"the cluster's error answer is over ${describeBytes(MAX_ERROR_BYTES)}"}`
              : Buffer.concat(chunks, size).toString("utf8");
          return reject(new AnswerStatusError(status, body));
        }
        if (options.budget && !options.budget.take(size)) return reject(new TransportError("too-large", options.budget.message));
        options.onAnswer?.(size);
        try {
          resolve(JSON.parse(Buffer.concat(chunks, size).toString("utf8")));
        } catch (error) {
          reject(error);
        }
      });
    });
    const timer = setTimeout(() => {
      const error = new Error(`no answer in ${options.timeoutMs} ms`);
      error.name = "TimeoutError";
      fail(error);
    }, options.timeoutMs);
    request.on("error", fail);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    request.end();
  });
}
