import type * as k8s from "@kubernetes/client-node";
import fetch from "node-fetch";
import { readBounded, redirectError, tooLargeError } from "./boundedHttp";
import { MAX_ERROR_BYTES, MAX_WATCH_LINE_BYTES } from "./limits";

/**
 * A watch over HTTP, read line by line within MAX_WATCH_LINE_BYTES: the library's Watch
 * (dist/watch.js) follows redirects and splits lines with readline, which holds a line of any length.
 * Each complete line is one event (`{"type": …, "object": …}`); a line that is not JSON is skipped,
 * as the library does. Resolves when the server ends the watch; rejects with a TransportError
 * (redirect, line too long) or the HTTP status of a refused watch (`{ code, body }`, as classify reads).
 */
export async function streamWatch(
  kc: k8s.KubeConfig,
  path: string,
  query: Record<string, string>,
  onLine: (event: { type?: string; object?: unknown }) => void,
  signal: AbortSignal,
  maxLineBytes = MAX_WATCH_LINE_BYTES,
): Promise<void> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error("the kubeconfig has no cluster");
  const url = new URL(cluster.server.replace(/\/$/, "") + path);
  url.searchParams.set("watch", "true");
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  const init = (await kc.applyToFetchOptions({})) as { headers?: Record<string, string>; agent?: unknown };
  // Ending the watch early (a redirect, a line too long) aborts the request, closing its connection.
  const own = new AbortController();
  const response = await fetch(url.toString(), {
    method: "GET",
    headers: init.headers as never,
    agent: init.agent as never,
    signal: AbortSignal.any([signal, own.signal]) as never,
    redirect: "manual",
  });
  if (response.status >= 300 && response.status < 400) {
    own.abort();
    throw redirectError("GET", url.toString(), response.status, response.headers.get("location"));
  }
  if (response.status !== 200) {
    const body = await readBounded(response, MAX_ERROR_BYTES, "the watch's error answer", () => own.abort()).catch(() => Buffer.alloc(0));
    throw { code: response.status, body: body.toString("utf8") };
  }
  const body = response.body as NodeJS.ReadableStream & { destroy?: () => void };
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const emit = (line: Buffer) => {
    if (line.length === 0) return;
    let event: { type?: string; object?: unknown };
    try {
      event = JSON.parse(line.toString("utf8"));
    } catch {
      return;
    }
    onLine(event);
  };
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      let start = 0;
      for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
        const part = chunk.subarray(start, nl);
        if (pendingBytes + part.length > maxLineBytes) throw tooLargeError("one event of the watch", maxLineBytes);
        emit(pending.length ? Buffer.concat([...pending, part]) : part);
        pending = [];
        pendingBytes = 0;
        start = nl + 1;
      }
      const rest = chunk.subarray(start);
      if (pendingBytes + rest.length > maxLineBytes) throw tooLargeError("one event of the watch", maxLineBytes);
      if (rest.length) {
        // A copy: the chunk's buffer may be reused by the stream.
        pending.push(Buffer.from(rest));
        pendingBytes += rest.length;
      }
    }
  } catch (error) {
    own.abort();
    throw error;
  }
  if (pendingBytes) emit(Buffer.concat(pending));
}
