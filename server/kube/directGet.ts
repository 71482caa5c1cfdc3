import http from "node:http";
import http2 from "node:http2";
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
  /** The cluster's HTTP/2 connection (or a hub proxy's connections), used when the server speaks HTTP/2. */
  h2?: H2Requests;
};

/**
 * Opens a request's HTTP/2 stream: called once the exchange is ready to listen to it. `cancel` lets go
 * of what was kept for a stream that will not be opened (the read was given up meanwhile).
 */
export type OpenStream = ((headers: http2.OutgoingHttpHeaders) => http2.ClientHttp2Stream) & { cancel?: () => void };

/** Where a GET's HTTP/2 stream comes from, once connected: null when the server speaks only HTTP/1.1 (./h2.ts H2Origin, H2Pool). */
export type H2Requests = { opener(): Promise<OpenStream | null> };

/** The error a GET fails with when its read was given up. */
const givenUp = () => Object.assign(new Error("the read was given up"), { name: "AbortError" });

/**
 * GET `url`; resolves to the parsed JSON of a 2xx answer, rejects with AnswerStatusError, TransportError
 * or the connection's error. Over the cluster's HTTP/2 connection when `h2` is given and the server
 * speaks it (./h2.ts), else over `agent`'s HTTP/1.1 connections.
 */
export async function getJson(url: URL, options: DirectGetOptions): Promise<unknown> {
  if (options.signal?.aborted) throw givenUp();
  if (!options.h2 || url.protocol !== "https:") return exchange(url, options, null);
  const started = performance.now();
  const open = await options.h2.opener();
  if (options.signal?.aborted) {
    open?.cancel?.();
    throw givenUp();
  }
  // Connecting counts against the request's deadline.
  const timeoutMs = Math.max(1, options.timeoutMs - (performance.now() - started));
  return exchange(url, { ...options, timeoutMs }, open);
}

/** The answer's head, as either protocol gives it. */
type Head = { status: number; location: string | null; contentLength: number };

/** One GET: on a stream `open` gives when the server speaks HTTP/2, else over `options.agent`. */
function exchange(url: URL, options: DirectGetOptions, open: OpenStream | null): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const onAbort = () => fail(givenUp());
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      cancel();
      reject(error);
    };
    /** Reads the answer's body from `body` once its head is known. */
    const answered = (head: Head, body: NodeJS.ReadableStream) => {
      const { status } = head;
      const path = url.pathname;
      if (status >= 300 && status < 400) return fail(redirectError("GET", url.href, status, head.location));
      const ok = status >= 200 && status < 300;
      const what = `the answer to GET ${path}`;
      if (head.contentLength > options.maxBytes) return fail(tooLargeError(what, options.maxBytes));
      const chunks: Buffer[] = [];
      let size = 0;
      body.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxBytes) return fail(tooLargeError(what, options.maxBytes));
        // An error's Status is read only for its message: a short prefix of a long one is enough.
        if (ok || size <= MAX_ERROR_BYTES) chunks.push(chunk);
      });
      body.on("error", fail);
      // A connection closed before the answer's end: a cut answer, never parsed as whole.
      body.on("close", () => fail(Object.assign(new Error("the connection closed before the answer ended"), { code: "ECONNRESET" })));
      body.on("end", () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        if (!ok) {
          const text =
            size > MAX_ERROR_BYTES
              ? `{"message":"the cluster's error answer is over ${describeBytes(MAX_ERROR_BYTES)}"}`
              : Buffer.concat(chunks, size).toString("utf8");
          return reject(new AnswerStatusError(status, text));
        }
        if (options.budget && !options.budget.take(size)) return reject(new TransportError("too-large", options.budget.message));
        options.onAnswer?.(size);
        try {
          resolve(JSON.parse(Buffer.concat(chunks, size).toString("utf8")));
        } catch (error) {
          reject(error);
        }
      });
    };
    let cancel: () => void;
    if (open) {
      const stream = open({ ":method": "GET", ":path": `${url.pathname}${url.search}`, ...options.headers });
      cancel = () => {
        if (!stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL);
      };
      stream.on("response", (headers) =>
        answered(
          {
            status: Number(headers[":status"] ?? 0),
            location: typeof headers.location === "string" ? headers.location : null,
            contentLength: Number(headers["content-length"] ?? NaN),
          },
          stream,
        ),
      );
      stream.on("error", fail);
      // Refused or reset before any answer (the connection went away): the read may be tried again.
      stream.on("close", () => fail(Object.assign(new Error("the stream closed before an answer"), { code: "ECONNRESET" })));
    } else {
      const send = url.protocol === "http:" ? http.request : https.request;
      const request = send(url, { method: "GET", agent: options.agent, headers: options.headers }, (response) =>
        answered(
          {
            status: response.statusCode ?? 0,
            location: response.headers.location ?? null,
            contentLength: Number(response.headers["content-length"] ?? NaN),
          },
          response,
        ),
      );
      cancel = () => request.destroy();
      request.on("error", fail);
      request.end();
    }
    const timer = setTimeout(() => {
      const error = new Error(`no answer in ${options.timeoutMs} ms`);
      error.name = "TimeoutError";
      fail(error);
    }, options.timeoutMs);
    options.signal?.addEventListener("abort", onAbort, { once: true });
  });
}
