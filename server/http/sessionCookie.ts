import { SESSION_COOKIE } from "../auth/session";
import { isHttps } from "./request";

export function sessionCookie(request: Request, token: string, expiresAt: Date): string {
  const parts = [`${SESSION_COOKIE}=${token}`, "Path=/", "HttpOnly", "SameSite=Lax", `Expires=${expiresAt.toUTCString()}`];
  if (isHttps(request)) parts.push("Secure");
  return parts.join("; ");
}

export function clearedSessionCookie(request: Request): string {
  const parts = [`${SESSION_COOKIE}=`, "Path=/", "HttpOnly", "SameSite=Lax", "Max-Age=0"];
  if (isHttps(request)) parts.push("Secure");
  return parts.join("; ");
}
