"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useState } from "react";
import { sessionEndpoints } from "@/server/auth/contract";
import { call } from "./api";

export type NavItem = { href: string; label: string };

export function AppHeader({ user, items }: { user: { username: string; role: string }; items: NavItem[] }) {
  const pathname = usePathname();
  const [signingOut, setSigningOut] = useState(false);

  async function signOut() {
    setSigningOut(true);
    const ended = await call(sessionEndpoints.signOut).catch(() => undefined);
    // A full load, not a client-side move: nothing of the signed-out session stays in memory.
    // Behind oauth-proxy its own sign-out (a path of this origin) ends the proxy's session too; after
    // OpenID Connect the sign-in page offers the provider's end-session endpoint.
    const provider = ended?.providerSignOut;
    window.location.assign(
      provider?.startsWith("/") && !provider.startsWith("//") ? provider : provider ? "/login?signed-out=oidc" : "/login",
    );
  }

  return (
    <header className="border-b border-line bg-surface">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:rounded focus:bg-surface focus:px-3 focus:py-2"
      >
        Skip to content
      </a>
      <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3">
        <Link href="/fleet" className="flex items-center gap-2 font-semibold">
          {/* eslint-disable-next-line @next/next/no-img-element -- a small SVG icon: next/image has nothing to optimize */}
          <img src="/favicon.svg" alt="" width={24} height={24} />
          Fleetskew
        </Link>
        <nav aria-label="Main" className="flex flex-1 flex-wrap gap-1">
          {items.map((item) => {
            const active = pathname === item.href || pathname.startsWith(`${item.href}/`);
            return (
              <Link
                key={item.href}
                href={item.href}
                aria-current={active ? "page" : undefined}
                className={`rounded-md px-3 py-1.5 text-sm ${active ? "bg-canvas font-semibold text-ink" : "text-muted hover:text-ink"}`}
              >
                {item.label}
              </Link>
            );
          })}
        </nav>
        <div className="flex items-center gap-3 text-sm">
          <span>
            <span className="font-medium">{user.username}</span> <span className="text-muted">· {user.role}</span>
          </span>
          <button
            type="button"
            onClick={signOut}
            disabled={signingOut}
            className="rounded-md border border-line px-3 py-1.5 hover:bg-canvas"
          >
            {signingOut ? "Signing out…" : "Sign out"}
          </button>
        </div>
      </div>
    </header>
  );
}
