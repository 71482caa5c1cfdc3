import { z } from "zod";
import { actorFor, type Actor } from "../auth/actor";
import { isForeignOrigin, isStateChanging } from "../auth/origin";
import { actorMay, heldLabel, type Role } from "../auth/roles";
import { identifyRequest, presentedBearer } from "../auth/identify";
import { UserFacingError } from "../errors";
import { plainIssue, plainIssues } from "./issues";
import { isDatabaseUnavailable } from "../store/errors";
import { recordAudit } from "../store/audit";
import type { UserRecord } from "../store/users";
import { releaseWhenSent, workLimiter } from "../security/workLimiter";
import { readBodyBytes } from "./body";
import { appConfig } from "../config/current";
import { clientIp, requestOrigin } from "./request";
import { readSessionToken } from "./sessionCookie";
import { type Access, type AnswerInput, type Endpoint, type EndpointSpec } from "./endpoint";

export type { Access };

/** The value a schema gives, or `Otherwise` when there is no schema. */
type Parsed<S, Otherwise> = S extends z.ZodType ? z.output<S> : Otherwise;

type BaseContext<P, B, Q> = {
  request: Request;
  params: Parsed<P, Record<string, never>>;
  body: Parsed<B, undefined>;
  query: Parsed<Q, undefined>;
  ip: string;
};

/** What a handler of a signed-in route gets: the user, and the actor its writes are recorded under. */
export type SignedInContext<P = undefined, B = undefined, Q = undefined> = BaseContext<P, B, Q> & { user: UserRecord; actor: Actor };
/** What a handler of a public route gets: a user only when the caller happens to be signed in. */
export type PublicContext<P = undefined, B = undefined, Q = undefined> = BaseContext<P, B, Q> & {
  user: UserRecord | null;
  actor: Actor | null;
};

type Context<A extends Access, P, B, Q> = A extends "public" ? PublicContext<P, B, Q> : SignedInContext<P, B, Q>;

export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

export const json = (data: unknown, init: ResponseInit = {}) => Response.json(data, init);
export const problem = (status: number, message: string, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) =>
  Response.json({ ...extra, error: message }, { status, headers });

export { readCookie } from "./cookies";

const NUL_REFUSED = "The request contains a NUL character (\\u0000 or %00), which Fleetskew does not accept";

/** The first problem zod found, as a plain sentence: "The from release (item 1) must be …", never "entries.0.fromRelease: …". */
export function firstIssue(error: z.ZodError): string {
  return plainIssue(error.issues[0]!).error;
}

/**
 * A refused body or query: the first problem as the sentence, and beside it the machine-readable
 * `field` it is about and every field's problem (`issues`), so a form can mark each field.
 */
export function invalidRequest(error: z.ZodError, status: 400 | 422 = 400): UserFacingError {
  const issues = plainIssues(error);
  return new UserFacingError(status, issues[0]!.error, {}, { field: issues[0]!.field, issues });
}

async function readBody<B extends z.ZodType>(request: Request, schema: B, maxBytes: number): Promise<z.output<B>> {
  const type = request.headers.get("content-type") ?? "";
  if (!type.toLowerCase().startsWith("application/json")) {
    throw new UserFacingError(415, "Send the request body as JSON (Content-Type: application/json)");
  }
  const bytes = await readBodyBytes(request, maxBytes);
  let data: unknown;
  let nul = false;
  try {
    data = JSON.parse(Buffer.from(bytes).toString("utf8"), (key, value) => {
      nul ||= key.includes("\0") || (typeof value === "string" && value.includes("\0"));
      return value;
    });
  } catch {
    throw new UserFacingError(400, "Request body is not valid JSON");
  }
  if (nul) throw new UserFacingError(400, NUL_REFUSED);
  const parsed = schema.safeParse(data);
  if (!parsed.success) throw invalidRequest(parsed.error);
  return parsed.data;
}

function readQuery<Q extends z.ZodType>(request: Request, schema: Q): z.output<Q> {
  const values = Object.fromEntries([...new URL(request.url).searchParams].filter(([, v]) => v !== ""));
  const parsed = schema.safeParse(values);
  if (!parsed.success) throw invalidRequest(parsed.error);
  return parsed.data;
}

async function readParams<P extends z.ZodType>(raw: unknown, schema: P): Promise<z.output<P>> {
  const parsed = schema.safeParse(raw ?? {});
  if (!parsed.success) throw new UserFacingError(404, parsed.error.issues[0]!.message);
  return parsed.data;
}

/**
 * A signed-in person's attempt to change something that was refused (wrong role, or a rule such as
 * "nobody approves their own request") goes into the audit log as denied. Best effort: the refusal
 * stands even when the log cannot be written.
 */
async function auditRefusal(request: Request, user: UserRecord | null, message: string): Promise<void> {
  if (!user || !isStateChanging(request.method)) return;
  const target = `${request.method} ${new URL(request.url).pathname}`;
  await recordAudit({
    actor: user.username,
    role: user.role,
    action: "request.refused",
    targetType: "api",
    targetId: target,
    summary: `was refused ${target}: ${message}`,
    outcome: "denied",
    ip: clientIp(request.headers),
  }).catch((error) => console.error(`fleetskew: could not record a refused ${target}:`, (error as Error).message));
}

/** Whether answers are checked against their endpoint's schema: always in development and tests. */
const checkAnswers = () => process.env.NODE_ENV !== "production" || process.env.FLEETSKEW_CHECK_ANSWERS === "1";

/** A route's handler, as apiRoute keeps it: the endpoint it answers for is readable by the OpenAPI test. */
export type RouteHandler = ((
  request: Request,
  context?: { params?: Promise<Record<string, string | string[] | undefined>> },
) => Promise<Response>) & { endpoint?: Endpoint };

/**
 * An answer that does not match its schema is the server's fault: in development and tests it is a
 * 500 naming the first difference, so a drifting answer fails a test instead of a page.
 */
async function checkAnswer(endpoint: EndpointSpec, response: Response): Promise<Response> {
  // A 204 has no body to check (noContentWhen); redirects and errors are not the answer.
  if ((endpoint.produces ?? "json") !== "json" || response.status === 204 || response.status >= 300) return response;
  if (endpoint.alsoCsv && (response.headers.get("content-type") ?? "").startsWith("text/csv")) return response;
  if (!(response.headers.get("content-type") ?? "").includes("application/json")) {
    return answerMismatch(endpoint, "the answer is not JSON");
  }
  const parsed = endpoint.answer.safeParse(await response.clone().json());
  return parsed.success ? response : answerMismatch(endpoint, firstIssue(parsed.error));
}

function answerMismatch(endpoint: EndpointSpec, what: string): Response {
  console.error(`${endpoint.method} ${endpoint.path}: the answer does not match its contract: ${what}`);
  return problem(500, `The server's answer did not match its contract (${what})`);
}

/**
 * Binds a route handler to its endpoint (declared in the feature's contract.ts): refuses
 * foreign-origin writes, checks the session and role (the one access check), parses the path,
 * query and body with the endpoint's schemas (the body counted while it streams), checks the
 * answer against the endpoint's schema in development and tests, and turns errors into JSON a
 * person can read. Handlers of signed-in routes get the user and actor narrowed; only public
 * routes see a possibly absent user. A handler returns the answer (sent as JSON with the
 * endpoint's status) or a Response of its own (a stream, a 304, a cookie to set).
 */
export function apiRoute<const E extends Endpoint>(
  endpoint: E,
  handler: (ctx: Context<E["access"], E["params"], E["body"], E["query"]>) => Promise<AnswerInput<E> | Response>,
): RouteHandler {
  const route: RouteHandler = async (request, context) => {
    let user: UserRecord | null = null;
    let actor: Actor | null = null;
    let release: (() => void) | undefined;
    try {
      const config = appConfig();
      // A bearer request is identified by its token alone (its cookie is ignored), and a browser
      // never adds a token to another site's request: only cookie-carried requests need the origin check.
      const bearer = presentedBearer(request.headers) !== null;
      if (!bearer && isStateChanging(request.method) && isForeignOrigin(request.headers, requestOrigin(request), config.allowedOrigins)) {
        return problem(403, "Cross-origin request refused: this action must come from the Fleetskew console itself");
      }
      // Postgres text cannot hold NUL: refused here, once, rather than failing deep in a query.
      if (/%00/.test(request.url)) return problem(400, NUL_REFUSED);
      const identity = await identifyRequest(request.headers, readSessionToken(request), { bearer: true });
      if (identity.tokenRefused) return problem(401, identity.tokenRefused, { "www-authenticate": 'Bearer realm="fleetskew"' });
      user = identity.user;
      const ip = clientIp(request.headers);
      actor = user ? actorFor(user, ip, identity.token) : null;
      if (endpoint.access !== "public") {
        if (identity.refused) return problem(403, identity.refused);
        if (!user || !actor) return problem(401, "Sign in first");
        if (actor.token && endpoint.personOnly) {
          const message = `An API token cannot ${endpoint.personOnly}; that needs a person signed in to the console (token ${actor.token.name})`;
          await auditRefusal(request, user, message);
          return problem(403, message);
        }
        if (!actorMay(actor, endpoint.access as readonly Role[] | "any")) {
          const roles = (endpoint.access as readonly Role[]).join(" or ");
          const message = `This needs the ${roles} role; ${user.username} holds ${heldLabel(actor)}${actor.token ? ` through token ${actor.token.name}` : ""}`;
          await auditRefusal(request, user, message);
          return problem(403, message);
        }
      }
      const rawParams = await context?.params;
      const params = endpoint.params ? await readParams(rawParams, endpoint.params) : {};
      const query = endpoint.query ? readQuery(request, endpoint.query) : undefined;
      // Taken before the body is read: a refused request costs no parsing.
      if (endpoint.work && user && (endpoint.work.when?.(query) ?? true))
        release = await workLimiter().acquire(endpoint.work.kind, user.id);
      const limit = endpoint.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
      const body = endpoint.body ? await readBody(request, endpoint.body, limit) : undefined;
      // A form endpoint's handler reads its multipart body itself, with its own limit; any other
      // body without a schema is still read, counted and discarded: never left unbounded.
      if (!endpoint.body && !endpoint.form && request.body) await readBodyBytes(request, limit);
      const result = await handler({
        request,
        params,
        body,
        query,
        ip,
        user,
        actor,
      } as Context<E["access"], E["params"], E["body"], E["query"]>);
      let response = result instanceof Response ? result : endpointAnswer(endpoint, result);
      if (checkAnswers()) response = await checkAnswer(endpoint, response);
      return release ? releaseWhenSent(response, release, result instanceof Response) : response;
    } catch (error) {
      release?.();
      if (error instanceof UserFacingError) {
        if (error.status === 403) await auditRefusal(request, user, error.message);
        return problem(error.status, error.message, error.headers, error.extra);
      }
      if (isDatabaseUnavailable(error)) {
        console.error(`${request.method} ${new URL(request.url).pathname}: database unavailable:`, (error as Error).message);
        return problem(503, "The database is unavailable; try again shortly", { "retry-after": "5" });
      }
      console.error(`${request.method} ${new URL(request.url).pathname} failed:`, error);
      return problem(500, "Something went wrong on the server; the details are in its log");
    }
  };
  route.endpoint = endpoint;
  return route;
}

function endpointAnswer(endpoint: EndpointSpec, result: unknown): Response {
  if (endpoint.status === 204 || endpoint.produces === "none") return new Response(null, { status: 204 });
  return json(result, { status: endpoint.status ?? 200 });
}

/**
 * A route that answers without apiRoute's session lookup (health, which load balancers call and
 * which must answer when the database does not), bound to its endpoint all the same.
 */
export function plainRoute(endpoint: Endpoint, handler: (request: Request) => Promise<Response>): RouteHandler {
  const route: RouteHandler = async (request) => {
    const response = await handler(request);
    return checkAnswers() && response.status < 300 ? checkAnswer(endpoint, response) : response;
  };
  route.endpoint = endpoint;
  return route;
}
