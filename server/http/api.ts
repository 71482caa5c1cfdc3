import { z } from "zod";
import { isForeignOrigin, isStateChanging } from "../auth/origin";
import { hasRole, type Role } from "../auth/roles";
import { SESSION_COOKIE, userForToken } from "../auth/session";
import { UserFacingError } from "../errors";
import { isDatabaseUnavailable } from "../store/errors";
import { recordAudit } from "../store/audit";
import type { UserRecord } from "../store/users";
import { clientIp, requestConfig, requestOrigin } from "./request";

export type Access = readonly Role[] | "any" | "public";

type Context<P, B> = {
  request: Request;
  params: P;
  body: B;
  ip: string;
  /** The signed-in user; null only for "public" routes without a session. */
  user: UserRecord | null;
};

type Options<B extends z.ZodType | undefined> = {
  /** "public": no session needed; "any": any signed-in user; a list: those roles (and admins). */
  access: Access;
  body?: B;
  maxBodyBytes?: number;
};

export const json = (data: unknown, init: ResponseInit = {}) => Response.json(data, init);
export const problem = (status: number, message: string, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) =>
  Response.json({ ...extra, error: message }, { status, headers });

export function readCookie(request: Request, name: string): string | undefined {
  const header = request.headers.get("cookie");
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

const NUL_REFUSED = "The request contains a NUL character (\\u0000 or %00), which Fleetskew does not accept";

async function readBody<B extends z.ZodType>(request: Request, schema: B, maxBytes: number): Promise<z.infer<B>> {
  const type = request.headers.get("content-type") ?? "";
  if (!type.toLowerCase().startsWith("application/json")) {
    throw new UserFacingError(415, "Send the request body as JSON (Content-Type: application/json)");
  }
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw new UserFacingError(413, `Request body is larger than ${maxBytes} bytes`);
  const text = await request.text();
  if (Buffer.byteLength(text) > maxBytes) throw new UserFacingError(413, `Request body is larger than ${maxBytes} bytes`);
  let data: unknown;
  let nul = false;
  try {
    data = JSON.parse(text, (key, value) => {
      nul ||= key.includes("\0") || (typeof value === "string" && value.includes("\0"));
      return value;
    });
  } catch {
    throw new UserFacingError(400, "Request body is not valid JSON");
  }
  if (nul) throw new UserFacingError(400, NUL_REFUSED);
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length ? `${issue.path.join(".")}: ` : "";
    throw new UserFacingError(400, `${where}${issue.message}`);
  }
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

/**
 * Wraps a route handler: refuses foreign-origin writes, checks the session and role (the one
 * access check), parses the body with zod, and turns errors into JSON a person can read.
 */
export function apiRoute<P = Record<string, never>, B extends z.ZodType | undefined = undefined>(
  options: Options<B>,
  handler: (ctx: Context<P, B extends z.ZodType ? z.infer<B> : undefined>) => Promise<Response | unknown>,
) {
  return async (request: Request, context?: { params?: Promise<P> }): Promise<Response> => {
    let user: UserRecord | null = null;
    try {
      const config = requestConfig();
      if (isStateChanging(request.method) && isForeignOrigin(request.headers, requestOrigin(request), config.allowedOrigins)) {
        return problem(403, "Cross-origin request refused: this action must come from the Fleetskew console itself");
      }
      // Postgres text cannot hold NUL: refused here, once, rather than failing deep in a query.
      if (/%00/.test(request.url)) return problem(400, NUL_REFUSED);
      user = await userForToken(readCookie(request, SESSION_COOKIE));
      if (options.access !== "public") {
        if (!user) return problem(401, "Sign in first");
        if (!hasRole(user.role, options.access)) {
          const roles = (options.access as readonly Role[]).join(" or ");
          const message = `This needs the ${roles} role; you are signed in as ${user.username} (${user.role})`;
          await auditRefusal(request, user, message);
          return problem(403, message);
        }
      }
      const body = options.body ? await readBody(request, options.body, options.maxBodyBytes ?? 64 * 1024) : undefined;
      const params = ((await context?.params) ?? {}) as P;
      const result = await handler({
        request,
        params,
        body: body as B extends z.ZodType ? z.infer<B> : undefined,
        ip: clientIp(request.headers),
        user,
      });
      return result instanceof Response ? result : json(result);
    } catch (error) {
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
}
