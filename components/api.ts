import { z } from "zod";
import { fillPath, queryString, type AnswerOf, type Endpoint } from "@/server/http/endpoint";

/** Client-side calls to /api/v1: JSON in, JSON out, and the server's own message on failure. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The rest of the server's answer (e.g. the digest of a refused bundle, the checks that blocked). */
    readonly data: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Sends one request: a FormData body as multipart/form-data (file uploads), anything else as JSON.
 * Answers what the server sent, unread: `call` checks it against the endpoint's schema.
 */
async function send(path: string, init: { method: string; body?: unknown }): Promise<unknown> {
  const form = init.body instanceof FormData ? init.body : undefined;
  const response = await fetch(path, {
    method: init.method,
    headers: init.body !== undefined && !form ? { "content-type": "application/json" } : undefined,
    body: form ?? (init.body !== undefined ? JSON.stringify(init.body) : undefined),
    credentials: "same-origin",
  });
  if (response.status === 401 && typeof window !== "undefined" && !path.endsWith("/session")) {
    // The session ended: a full load of the login page, from wherever this call was made (outside React).
    // eslint-disable-next-line @next/next/no-location-assign-relative-destination
    window.location.assign(`/login?next=${encodeURIComponent(window.location.pathname)}`);
  }
  if (response.status === 204) return undefined;
  const data: unknown = await response.json().catch(() => ({}));
  if (!response.ok) {
    const fields = isRecord(data) ? data : {};
    throw new ApiError(response.status, typeof fields.error === "string" ? fields.error : `Request failed (${response.status})`, fields);
  }
  return data;
}

type Input<S, Otherwise = never> = S extends z.ZodType ? z.input<S> : Otherwise;

/** What a call sends: the path's segments, the query, and the body (JSON, or FormData for a form endpoint). */
export type CallInput<E extends Endpoint> = {
  params?: Input<E["params"], Record<string, string>>;
  query?: Input<E["query"], Record<string, string | number | boolean | null | undefined>>;
  body?: Input<E["body"], E["form"] extends z.ZodType ? FormData : undefined>;
};

/**
 * Calls an endpoint declared in a contract and checks its answer against the endpoint's schema,
 * so what a component reads is what the schema says, never a cast.
 */
export async function call<const E extends Endpoint>(endpoint: E, input: CallInput<E> = {}): Promise<AnswerOf<E>> {
  const path =
    fillPath(endpoint.path, (input.params ?? {}) as Record<string, string>) + queryString(input.query as Record<string, unknown>);
  const data = await send(path, { method: endpoint.method, body: input.body });
  // z.safeParse keeps the endpoint's own answer type, so what is returned is what the schema says.
  const parsed = z.safeParse(endpoint.answer as E["answer"], data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ApiError(
      0,
      `The server's answer to ${endpoint.method} ${endpoint.path} was not understood (${issue?.path.join(".")}: ${issue?.message})`,
    );
  }
  return parsed.data;
}

/**
 * The server's sentence about one field of a refused form, to show beside that field: the answer's
 * `field` and `issues` (server/http/issues.ts) say which field each sentence is about.
 */
export function fieldError(error: unknown, field: string): string | null {
  if (!(error instanceof ApiError)) return null;
  const issues = Array.isArray(error.data.issues) ? (error.data.issues as { field?: unknown; error?: unknown }[]) : [];
  const own = issues.find((i) => i.field === field && typeof i.error === "string");
  if (own) return own.error as string;
  return error.data.field === field ? error.message : null;
}

/** Whether a refused form's error is about one of its fields (then it is shown there, not at the bottom). */
export function isFieldError(error: unknown, fields: readonly string[]): boolean {
  return error instanceof ApiError && typeof error.data.field === "string" && fields.includes(error.data.field);
}
