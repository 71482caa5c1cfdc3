import type { Metadata } from "next";
import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { LoginForm } from "@/components/LoginForm";
import { afterSignIn } from "@/components/sameOriginPath";
import { Alert } from "@/components/ui";
import { providerSignOutUrl } from "@/server/auth/oidc";
import { effectiveOidc } from "@/server/auth/oidcSettings";
import { currentPageIdentity } from "@/server/auth/page";
import { readSignInSettings } from "@/server/auth/signInSettings";
import { appConfig } from "@/server/config/current";
import { originOf } from "@/server/http/request";
import { SIGN_IN_REFUSED_COOKIE } from "@/server/http/sessionCookie";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

type Search = { next?: string | string[]; refused?: string; "signed-out"?: string };

/** Why the last single sign-on was refused: the callback's short-lived cookie, shown once it is there. */
async function refusalMessage(): Promise<string | null> {
  const raw = (await cookies()).get(SIGN_IN_REFUSED_COOKIE)?.value;
  if (!raw) return null;
  try {
    return decodeURIComponent(raw).slice(0, 1000) || null;
  } catch {
    return null;
  }
}

export default async function LoginPage({ searchParams }: { searchParams: Promise<Search> }) {
  const search = await searchParams;
  const raw = search.next;
  // Only a same-origin path is followed after sign-in (components/sameOriginPath.ts), never another site.
  const next = afterSignIn(typeof raw === "string" ? raw : undefined, originOf(await headers()));
  const identity = await currentPageIdentity();
  if (identity.user) redirect(next);
  const config = appConfig();
  const oidc = (await effectiveOidc(config))?.oidc ?? null;
  const settings = await readSignInSettings();
  const refused = identity.refused ?? (search.refused ? await refusalMessage() : null);
  const providerSignOut =
    search["signed-out"] === "oidc" && oidc && config.publicUrl ? await providerSignOutUrl(oidc, config.publicUrl) : null;
  return (
    <main className="flex min-h-screen items-center justify-center px-4">
      <div className="w-full max-w-sm">
        <div className="mb-8 flex items-center gap-3">
          {/* eslint-disable-next-line @next/next/no-img-element -- a small SVG icon: next/image has nothing to optimize */}
          <img src="/favicon.svg" alt="" width={36} height={36} />
          <div>
            <h1 className="text-xl font-semibold">Fleetskew</h1>
            <p className="text-sm text-muted">OpenShift fleet upgrade console</p>
          </div>
        </div>
        {refused ? (
          <div className="mb-4">
            <Alert tone="error">Sign-in refused: {refused}</Alert>
          </div>
        ) : null}
        {providerSignOut && oidc ? (
          <div className="mb-4">
            <Alert tone="ok">
              You are signed out of Fleetskew.{" "}
              <a className="underline" href={providerSignOut}>
                Sign out of {oidc.name} too
              </a>
            </Alert>
          </div>
        ) : null}
        {oidc ? (
          <a
            href={`/api/v1/session/oidc?next=${encodeURIComponent(next)}`}
            className="mb-4 block rounded-md bg-accent px-4 py-2 text-center font-medium text-accent-ink hover:opacity-90"
          >
            Sign in with {oidc.name}
          </a>
        ) : null}
        <LoginForm next={next} localSignIn={settings.localSignIn} />
      </div>
    </main>
  );
}
