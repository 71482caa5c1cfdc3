/**
 * One endpoint of /api, declared once in its feature's contract.ts: the route handler is bound to
 * it (apiRoute), the browser calls it (components/api.ts `call`), and the OpenAPI document is made
 * from it (server/http/openapi.ts). This module imports zod only, so the browser may import the
 * contracts that use it.
 */
import { z } from "zod";
import type { Role } from "../domain/accounts";
import type { WorkKind } from "../domain/workLimits";

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** "public": no session needed; "any": any signed-in person; a list: those roles (and admins). */
export type Access = readonly Role[] | "any" | "public";

/**
 * How the answer is sent: JSON checked against `answer`, a CSV stream, nothing (204), or a
 * redirect (302/303 with a Location header and no body; the browser is sent there).
 */
export type Produces = "json" | "csv" | "none" | "redirect";

export type EndpointSpec = {
  method: Method;
  /** The path as OpenAPI writes it: `/api/v1/clusters/{name}/readiness`. */
  path: `/api/${string}`;
  /** One line for the OpenAPI document and the route × role table. */
  summary: string;
  /** Longer prose: paging, what is left out for whom. */
  description?: string;
  access: Access;
  /**
   * What only a person signed in to the console may do here, never an API token (approving,
   * releasing, deciding, managing accounts and tokens): the words finish "An API token cannot …".
   */
  personOnly?: string;
  /** The path's `{segments}`; a value the schema refuses is a 404. */
  params?: z.ZodObject;
  /** The query string, as an object of its (last) values; empty values count as absent. */
  query?: z.ZodType;
  /** A JSON body. */
  body?: z.ZodType;
  /** A multipart/form-data body the handler reads itself, described for the document. */
  form?: z.ZodType;
  /** The body's limit in bytes, counted while it streams (default 64 KiB). */
  maxBodyBytes?: number;
  /** The answer on success. For `produces: "csv"` or `"none"` it is not sent as JSON. */
  answer: z.ZodType;
  /** The success status: 200 unless said. */
  status?: 200 | 201 | 202 | 204 | 302 | 303;
  produces?: Produces;
  /** A JSON endpoint that at times answers 204 with no body instead: when it does (the answer schema then allows undefined). */
  noContentWhen?: string;
  /**
   * A JSON endpoint that also answers CSV (text/csv) when its query asks for it: says how, for the
   * document (e.g. "?format=csv downloads the matching events"). The CSV is not checked.
   */
  alsoCsv?: string;
  /**
   * Statuses this endpoint answers beyond those the document lists for every endpoint (500, 503; 401
   * and 403 when signed in; 400 with a request to check; 404 with path segments; 413 and 415 with a body).
   */
  errors?: readonly (304 | 401 | 404 | 409 | 410 | 422 | 423 | 428 | 429 | 502 | 504)[];
  /**
   * Expensive work, limited per person and in total (server/domain/workLimits.ts): past the limit
   * the answer is 429 with Retry-After. `when` narrows it to some queries (the audit log's CSV).
   */
  work?: { kind: WorkKind; when?: (query: unknown) => boolean };
};

export type Endpoint<S extends EndpointSpec = EndpointSpec> = S & { readonly __endpoint: true };

/** Declares an endpoint; the `const` keeps its literal path, method and schemas in the type. */
export function endpoint<const S extends EndpointSpec>(spec: S): Endpoint<S> {
  return Object.freeze({ ...spec, __endpoint: true as const });
}

/** What the answer is on the wire (what the browser receives). */
export type AnswerOf<E extends EndpointSpec> = z.output<E["answer"]>;
/** What a handler gives for the answer (before JSON serialisation). */
export type AnswerInput<E extends EndpointSpec> = z.input<E["answer"]>;

/** An error answer: a sentence a person can act on, and for some errors more (the checks that blocked). */
export const ErrorAnswer = z
  .object({ error: z.string().meta({ description: "What went wrong, in words a person can act on" }) })
  .catchall(z.unknown())
  .meta({ id: "Error" });

/** `{name}` segments of a path template. */
export function pathSegments(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
}

/** The path with its `{segments}` filled in, each encoded. */
export function fillPath(path: string, params: Record<string, string> = {}): string {
  return path.replace(/\{(\w+)\}/g, (_, key: string) => {
    const value = params[key];
    if (value === undefined) throw new Error(`${path}: no value for {${key}}`);
    return encodeURIComponent(value);
  });
}

/** `?a=1&b=x`, leaving out absent and empty values, as the server counts them absent. */
export function queryString(query: Record<string, unknown> | undefined): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null || value === "") continue;
    search.set(key, Array.isArray(value) ? value.join(",") : String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

/** Dates as the API writes them: ISO 8601 strings in UTC. */
export const isoDate = () => z.string().meta({ format: "date-time" });
