/**
 * The OpenAPI 3.1 document of /api, made from the endpoints the contracts declare
 * (server/api/endpoints.ts), so it cannot describe a shape the server does not check.
 */
import { z } from "zod";
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from "zod-openapi";
import { ErrorAnswer, pathSegments, type Endpoint } from "./endpoint";

const ERROR_WORDS: Record<number, string> = {
  304: "Not modified: the answer is the one whose ETag the request sent",
  400: "The request is malformed; the message names the field",
  401: "Not signed in",
  403: "The signed-in person's role may not do this, or the request came from another origin",
  404: "No such object, or a path segment the server does not accept",
  409: "Conflicts with the current state (a duplicate, or a change made meanwhile)",
  410: "Gone: the object existed but can no longer be used",
  413: "The body is larger than this endpoint accepts",
  415: "The body is not in the type this endpoint accepts",
  422: "Understood, but refused by a rule; the message says which",
  423: "Locked: too many failed attempts for now",
  428: "A precondition is required: send the version the change is for (If-Match)",
  429: "Too many requests; try again after Retry-After seconds",
  500: "The server failed; the details are in its log",
  502: "A cluster or hub answered with an error",
  503: "The database is unavailable; try again shortly",
  504: "A cluster or hub did not answer in time",
};

const REDIRECT_HEADERS = z.object({ location: z.string().meta({ description: "Where the browser goes next" }) });

/** Who may call it, as the document's readers want it: also an `x-roles` list for tools. */
function accessWords(endpoint: Endpoint): { text: string; roles: string[] } {
  if (endpoint.access === "public") return { text: "Public: no sign-in needed.", roles: [] };
  if (endpoint.access === "any") return { text: "Any signed-in person.", roles: ["viewer", "technician", "approver", "admin"] };
  const roles = [...new Set([...endpoint.access, "admin"])];
  return { text: `Roles: ${roles.join(", ")}.`, roles };
}

/** What an API token may not do here: said in the description, and as `x-person-only` for tools. */
const personOnlyWords = (endpoint: Endpoint) =>
  endpoint.personOnly ? `A person signed in to the console only: an API token cannot ${endpoint.personOnly} (403).` : undefined;

function errorStatuses(endpoint: Endpoint): number[] {
  const statuses = new Set<number>([500, 503, ...(endpoint.errors ?? [])]);
  if (endpoint.access !== "public") [401, 403].forEach((s) => statuses.add(s));
  if (endpoint.params) statuses.add(404);
  if (endpoint.query || endpoint.body || endpoint.form || endpoint.params) statuses.add(400);
  if (endpoint.body || endpoint.form) [413, 415].forEach((s) => statuses.add(s));
  if (endpoint.method !== "GET") statuses.add(403);
  if (endpoint.work) statuses.add(429);
  return [...statuses].sort();
}

function operation(endpoint: Endpoint): ZodOpenApiOperationObject {
  const access = accessWords(endpoint);
  const limited = endpoint.work
    ? `Expensive (${endpoint.work.kind}): limited per person and in total across all web processes; past the limit, 429 with Retry-After.`
    : undefined;
  const status = String(endpoint.status ?? (endpoint.produces === "none" ? 204 : 200));
  const produces = endpoint.produces ?? "json";
  const success =
    produces === "none"
      ? { description: "Done; no content" }
      : produces === "redirect"
        ? { description: "A redirect: the browser is sent on to the Location", headers: REDIRECT_HEADERS }
        : produces === "csv"
          ? { description: "A CSV file", content: { "text/csv": { schema: endpoint.answer } } }
          : {
              description: endpoint.alsoCsv ? `The answer; ${endpoint.alsoCsv}` : "The answer",
              content: {
                "application/json": { schema: endpoint.answer },
                ...(endpoint.alsoCsv ? { "text/csv": { schema: z.string() } } : {}),
              },
            };
  const noContent = endpoint.noContentWhen ? { "204": { description: `No content: ${endpoint.noContentWhen}` } } : {};
  const errors = Object.fromEntries(
    errorStatuses(endpoint).map((code) => [
      String(code),
      code === 304
        ? { description: ERROR_WORDS[code]! }
        : { description: ERROR_WORDS[code] ?? "An error", content: { "application/json": { schema: ErrorAnswer } } },
    ]),
  );
  const requestBody = endpoint.body
    ? { required: true, content: { "application/json": { schema: endpoint.body } } }
    : endpoint.form
      ? { required: true, content: { "multipart/form-data": { schema: endpoint.form } } }
      : undefined;
  return {
    summary: endpoint.summary,
    description: [endpoint.description, limited, access.text, personOnlyWords(endpoint)].filter(Boolean).join("\n\n"),
    tags: [tagOf(endpoint.path)],
    "x-roles": access.roles,
    ...(endpoint.personOnly ? { "x-person-only": true, security: [{ session: [] }] } : {}),
    ...(endpoint.access === "public" ? { security: [] } : {}),
    requestParams: {
      ...(endpoint.params ? { path: endpoint.params } : {}),
      ...(endpoint.query ? { query: endpoint.query as z.ZodObject } : {}),
    },
    ...(requestBody ? { requestBody } : {}),
    responses: { [status]: success, ...noContent, ...errors },
  } as ZodOpenApiOperationObject;
}

/** `/api/v1/clusters/{name}/preview` → `clusters`: endpoints grouped by their feature. */
function tagOf(path: string): string {
  return (
    path
      .replace(/^\/api\/(v1\/)?/, "")
      .split("/")[0]!
      .replace(/\.json$/, "") || "api"
  );
}

export function buildOpenApiDocument(endpoints: readonly Endpoint[], version: string) {
  const paths: ZodOpenApiPathsObject = {};
  for (const endpoint of endpoints) {
    const missing = pathSegments(endpoint.path).filter((key) => !endpoint.params?.shape[key]);
    if (missing.length) throw new Error(`${endpoint.method} ${endpoint.path}: no schema for {${missing.join("}, {")}}`);
    const item = (paths[endpoint.path] ??= {}) as Record<string, ZodOpenApiOperationObject>;
    const method = endpoint.method.toLowerCase();
    if (item[method]) throw new Error(`${endpoint.method} ${endpoint.path} is declared twice`);
    item[method] = operation(endpoint);
  }
  return createDocument(
    {
      openapi: "3.1.0",
      info: {
        title: "Fleetskew API",
        version,
        description:
          "The API of the Fleetskew console: everything its pages do. Sign in with POST /api/v1/session (or single sign-on) and send the session cookie; changes must come from the console's own origin or carry no Origin header. Scripts may instead send an API token (Authorization: Bearer fsk_…, made with POST /api/v1/tokens), which needs no Origin check. The prose around this document is docs/api.md.",
      },
      components: {
        securitySchemes: {
          session: { type: "apiKey", in: "cookie", name: "fleetskew_session" },
          token: { type: "http", scheme: "bearer", description: "An API token: fsk_ and 49 base62 characters (POST /api/v1/tokens)" },
        },
      },
      security: [{ session: [] }, { token: [] }],
      paths,
    },
    { reused: "ref" },
  );
}
