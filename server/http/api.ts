import { z } from "zod";
import { isForeignOrigin, isStateChanging } from "../auth/origin";
import { hasRole, type Role } from "../auth/roles";
import { SESSION_COOKIE, userForToken } from "../auth/session";
import { UserFacingError } from "../errors";
import { isDatabaseUnavailable } from "../store/errors";
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
  try {
    data = JSON.parse(text);
  } catch {
    throw new UserFacingError(400, "Request body is not valid JSON");
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length ? `${issue.path.join(".")}: ` : "";
    throw new UserFacingError(400, `${where}${issue.message}`);
  }
  return parsed.data;
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
    try {
      const config = requestConfig();
      if (isStateChanging(request.method) && isForeignOrigin(request.headers, requestOrigin(request), config.allowedOrigins)) {
        return problem(403, "Cross-origin request refused: this action must come from the Fleetskew console itself");
      }
      const user = await userForToken(readCookie(request, SESSION_COOKIE));
      if (options.access !== "public") {
        if (!user) return problem(401, "Sign in first");
        if (!hasRole(user.role, options.access)) {
          const roles = (options.access as readonly Role[]).join(" or ");
          return problem(403, `This needs the ${roles} role; you are signed in as ${user.username} (${user.role})`);
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
      if (error instanceof UserFacingError) return problem(error.status, error.message, error.headers, error.extra);
      if (isDatabaseUnavailable(error)) {
        console.error(`${request.method} ${new URL(request.url).pathname}: database unavailable:`, (error as Error).message);
        return problem(503, "The database is unavailable; try again shortly", { "retry-after": "5" });
      }
      console.error(`${request.method} ${new URL(request.url).pathname} failed:`, error);
      return problem(500, "Something went wrong on the server; the details are in its log");
    }
  };
}
