import { POST as loginRoute } from "@/app/api/v1/session/route";
import { startSession } from "../auth/session";
import { CLIENT_IP_HEADER } from "../http/request";
import type { UserRecord } from "../store/users";

/**
 * Route handlers called with real Requests, as the browser sends them: same origin, the client IP
 * the start script's server sets, a session cookie. What they answer is what HTTP would carry.
 */
export const ORIGIN = "http://127.0.0.1:3000";

export type RequestInit = {
  method?: string;
  /** JSON (an object, or text sent as it is) or multipart form data. */
  body?: unknown;
  cookie?: string;
  headers?: Record<string, string>;
  /** The Origin header; null sends none, as scripts do. */
  origin?: string | null;
};

export function request(path: string, init: RequestInit = {}): Request {
  const headers: Record<string, string> = { host: "127.0.0.1:3000", [CLIENT_IP_HEADER]: "127.0.0.1" };
  const origin = init.origin === undefined ? ORIGIN : init.origin;
  if (origin !== null) headers.origin = origin;
  if (init.cookie) headers.cookie = init.cookie;
  const form = init.body instanceof FormData ? init.body : undefined;
  if (init.body !== undefined && !form) headers["content-type"] = "application/json";
  Object.assign(headers, init.headers);
  return new Request(`${ORIGIN}${path}`, {
    method: init.method ?? "GET",
    headers,
    body: form ?? (init.body === undefined ? undefined : typeof init.body === "string" ? init.body : JSON.stringify(init.body)),
  });
}

/** Signs in through POST /api/v1/session; the session cookie to send with later requests. */
export async function signIn(username: string, password: string): Promise<string> {
  const response = await loginRoute(request("/api/v1/session", { method: "POST", body: { username, password } }));
  if (response.status !== 200) throw new Error(`sign-in of ${username} answered ${response.status}: ${await response.text()}`);
  return response.headers.get("set-cookie")!.split(";")[0]!;
}

/** A session cookie for `user`, made without a password (a fresh session each time). */
export async function sessionCookie(user: UserRecord): Promise<string> {
  const { token } = await startSession(user, { ip: "127.0.0.1", userAgent: null, ttlHours: 1 });
  return `fleetskew_session=${token}`;
}

/** The second argument of a dynamic route's handler. */
export const params = <P extends Record<string, string>>(values: P) => ({ params: Promise.resolve(values) });
