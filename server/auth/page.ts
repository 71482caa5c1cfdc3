import { cookies, headers } from "next/headers";
import { forbidden, redirect } from "next/navigation";
import type { UserRecord } from "../store/users";
import { hasRole, type Role } from "./roles";
import { isHttpsRequest } from "../http/request";
import { identifyRequest, type RequestIdentity } from "./identify";
import { sessionCookieName } from "./session";

async function pageSessionToken(): Promise<string | undefined> {
  return (await cookies()).get(sessionCookieName(isHttpsRequest(await headers())))?.value;
}

/**
 * The access check for pages: the same session and role rules as the API. Without a session it
 * redirects to the login page (returning here afterwards); with the wrong role it renders 403.
 */
async function pageIdentity(): Promise<RequestIdentity> {
  return identifyRequest(await headers(), await pageSessionToken());
}

export async function requirePageUser(access: readonly Role[] | "any" = "any"): Promise<UserRecord> {
  const { user } = await pageIdentity();
  if (!user) {
    const path = (await headers()).get("x-fleetskew-path") ?? "/";
    redirect(`/login?next=${encodeURIComponent(path)}`);
  }
  if (!hasRole(user.role, access)) forbidden();
  return user;
}

/** For the login page: who is signed in already, if anyone, or why a proxy's sign-in was refused. */
export async function currentPageIdentity(): Promise<RequestIdentity> {
  return pageIdentity();
}
