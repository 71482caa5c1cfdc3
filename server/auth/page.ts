import { cookies, headers } from "next/headers";
import { forbidden, redirect } from "next/navigation";
import type { UserRecord } from "../store/users";
import { hasRole, type Role } from "./roles";
import { isHttpsRequest } from "../http/request";
import { sessionCookieName, userForToken } from "./session";

async function pageSessionToken(): Promise<string | undefined> {
  return (await cookies()).get(sessionCookieName(isHttpsRequest(await headers())))?.value;
}

/**
 * The access check for pages: the same session and role rules as the API. Without a session it
 * redirects to the login page (returning here afterwards); with the wrong role it renders 403.
 */
export async function requirePageUser(access: readonly Role[] | "any" = "any"): Promise<UserRecord> {
  const user = await userForToken(await pageSessionToken());
  if (!user) {
    const path = (await headers()).get("x-fleetskew-path") ?? "/";
    redirect(`/login?next=${encodeURIComponent(path)}`);
  }
  if (!hasRole(user.role, access)) forbidden();
  return user;
}

/** For the login page: who is signed in already, if anyone. */
export async function currentPageUser(): Promise<UserRecord | null> {
  return userForToken(await pageSessionToken());
}
