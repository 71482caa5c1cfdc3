import { cookies, headers } from "next/headers";
import { forbidden, redirect } from "next/navigation";
import type { UserRecord } from "../store/users";
import { actorFor, type Actor } from "./actor";
import { clientIp } from "../http/request";
import { actorMay, type Role } from "./roles";
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

/** The signed-in person behind a page, with the grants its reads are limited to. */
export async function requirePageActor(access: readonly Role[] | "any" = "any"): Promise<Actor> {
  const { user } = await pageIdentity();
  if (!user) {
    const path = (await headers()).get("x-fleetskew-path") ?? "/";
    redirect(`/login?next=${encodeURIComponent(path)}`);
  }
  const actor = actorFor(user, clientIp(await headers()));
  if (!actorMay(actor, access)) forbidden();
  return actor;
}

export async function requirePageUser(access: readonly Role[] | "any" = "any"): Promise<UserRecord> {
  return (await requirePageActor(access)).user;
}

/** For the login page: who is signed in already, if anyone, or why a proxy's sign-in was refused. */
export async function currentPageIdentity(): Promise<RequestIdentity> {
  return pageIdentity();
}
