/**
 * The command line's HTTP client, built on the endpoints the contracts declare (the same objects the
 * route handlers bind to and the browser calls), so what is sent and what is read are checked by the
 * same zod schemas. Hostile answers are refused: redirects, non-JSON, oversized bodies, slow servers.
 */
import { z } from "zod";
import { fillPath, queryString, type AnswerOf, type Endpoint } from "../server/http/endpoint";

/** Answers larger than this are refused (a fleet page of 1000 clusters is well under 4 MiB). */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 30_000;

export type Connection = {
  /** The console's address, e.g. https://fleetskew.example.com (no path beyond it). */
  server: URL;
  token: string | undefined;
  /** For local development only: a console session's cookie value (FLEETSKEW_SESSION), sent when there is no token. */
  session?: string | undefined;
  timeoutMs: number;
};

/** The server answered, and refused (4xx/5xx), or the request never got an answer it could read. */
export class RequestFailed extends Error {
  constructor(
    message: string,
    /** The HTTP status; 0 when there was no (readable) answer. */
    readonly status: number,
    /** Seconds the server asked to wait (Retry-After), when it said. */
    readonly retryAfter: number | null = null,
    /** The request field the server's refusal is about (its answer's `field`), when it named one. */
    readonly field: string | null = null,
  ) {
    super(message);
  }
}

type Input<S, Otherwise = never> = S extends z.ZodType ? z.input<S> : Otherwise;

export type CallInput<E extends Endpoint> = {
  params?: Input<E["params"], Record<string, string>>;
  query?: Input<E["query"], Record<string, string | number | boolean | undefined>>;
  body?: Input<E["body"], undefined>;
};

/** Retry-After in seconds (a number or an HTTP date), or null. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/** Reads at most `limit` bytes of a body, refusing more (a Content-Length can lie or be absent). */
async function readLimited(response: Response, limit: number): Promise<string> {
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > limit) throw new RequestFailed(`the answer is larger than ${limit} bytes; refused`, 0);
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new RequestFailed(`the answer is larger than ${limit} bytes; refused`, 0);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** One line, however the server or a proxy worded it. */
const oneLine = (text: string, max = 500) => {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
};

/**
 * Calls an endpoint declared in a contract and checks the answer against its schema. The body is
 * checked before it is sent (a local mistake is the caller's to report as a usage error).
 */
export async function callEndpoint<const E extends Endpoint>(
  connection: Connection,
  endpoint: E,
  input: CallInput<E> = {},
  options: { signal?: AbortSignal; fetch?: typeof fetch } = {},
): Promise<AnswerOf<E>> {
  const path =
    fillPath(endpoint.path, (input.params ?? {}) as Record<string, string>) + queryString(input.query as Record<string, unknown>);
  const url = new URL(path, connection.server);
  const headers: Record<string, string> = { accept: "application/json" };
  if (connection.token) headers.authorization = `Bearer ${connection.token}`;
  else if (connection.session) headers.cookie = `fleetskew_session=${connection.session}`;
  if (input.body !== undefined) headers["content-type"] = "application/json";
  const what = `${endpoint.method} ${url.pathname}`;
  const timeout = AbortSignal.timeout(connection.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(url, {
      method: endpoint.method,
      headers,
      body: input.body !== undefined ? JSON.stringify(input.body) : undefined,
      // A redirect is never followed: the token would go wherever it points.
      redirect: "manual",
      signal,
    });
  } catch (error) {
    if (timeout.aborted) throw new RequestFailed(`${what}: no answer within ${connection.timeoutMs / 1000} s`, 0);
    if (options.signal?.aborted) throw error;
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new RequestFailed(`cannot reach ${connection.server.origin}: ${cause?.code ?? cause?.message ?? (error as Error).message}`, 0);
  }
  const retryAfter = retryAfterSeconds(response.headers.get("retry-after"));
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel().catch(() => undefined);
    const location = response.headers.get("location");
    throw new RequestFailed(
      `${what}: the server redirected to ${location ? oneLine(location, 200) : "another address"}; give that address as --server (redirects are not followed, so the token goes nowhere else)`,
      response.status,
    );
  }
  if (response.status === 204) return undefined as AnswerOf<E>;
  const type = response.headers.get("content-type") ?? "";
  const text = await readLimited(response, MAX_ANSWER_BYTES);
  if (!/^application\/([\w.+-]+\+)?json\b/i.test(type)) {
    throw new RequestFailed(
      `${what}: the server answered ${response.status} with ${type.split(";")[0] || "no content type"}, not JSON; is ${connection.server.origin} a Fleetskew console?`,
      response.status,
      retryAfter,
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new RequestFailed(`${what}: the server's answer (${response.status}) is not valid JSON`, response.status, retryAfter);
  }
  if (!response.ok) {
    const error =
      typeof data === "object" && data !== null && typeof (data as { error?: unknown }).error === "string"
        ? (data as { error: string }).error
        : null;
    const field =
      typeof data === "object" && data !== null && typeof (data as { field?: unknown }).field === "string"
        ? (data as { field: string }).field
        : null;
    throw new RequestFailed(`${oneLine(error ?? `the request failed`)} (${response.status})`, response.status, retryAfter, field);
  }
  const parsed = z.safeParse(endpoint.answer as E["answer"], data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RequestFailed(
      `${what}: the server's answer was not understood (${issue?.path.join(".") || "answer"}: ${issue?.message}); is this CLI as new as the console?`,
      response.status,
    );
  }
  return parsed.data;
}
