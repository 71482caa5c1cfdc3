"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useState } from "react";
import { sessionEndpoints } from "@/server/auth/contract";
import { call } from "./api";
import { grantText, type ShownGrant } from "./grants";

export type NavItem = { href: string; label: string };

/**
 * What the person holds, beside their name: one grant as it reads ("technician · clusterSet=edge-emea"),
 * several as a count that opens the list, none as a plain warning (they see no cluster).
 */
function HeldGrants({ role, grants }: { role: string; grants?: readonly ShownGrant[] }) {
  if (!grants || role === "admin") return <span className="text-muted">· {role}</span>;
  if (grants.length === 0)
    return (
      <span className="text-danger" title="Ask an administrator for a grant">
        · no grant: you see no cluster
      </span>
    );
  if (grants.length === 1) return <span className="text-muted">· {grantText(grants[0]!)}</span>;
  return (
    <details className="relative inline-block">
      <summary className="cursor-pointer list-none text-muted hover:text-ink">· {grants.length} grants ▾</summary>
      <ul
        aria-label="Your grants"
        className="absolute right-0 z-10 mt-2 min-w-64 rounded-md border border-line bg-surface p-2 text-sm shadow"
      >
        {grants.map((g) => (
          <li key={`${g.role}@${g.scope}`} className="whitespace-nowrap px-2 py-1">
            {grantText(g)}
          </li>
        ))}
      </ul>
    </details>
  );
}

export function AppHeader({ user, items }: { user: { username: string; role: string; grants?: readonly ShownGrant[] }; items: NavItem[] }) {
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
        {/* On a phone the sections are one row that scrolls sideways in itself, below the name and the
            person, instead of three rows of links pushing the page down. */}
        <nav
          aria-label="Main"
          className="order-last -mx-1 flex w-full gap-1 overflow-x-auto whitespace-nowrap md:order-none md:mx-0 md:w-auto md:flex-1 md:flex-wrap md:overflow-visible"
        >
          {items.map((item) => {
            const active = pathname === item.href || pathname.startsWith(`${item.href}/`);
            return (
              <Link
                key={item.href}
                href={item.href}
                aria-current={active ? "page" : undefined}
                className={`shrink-0 rounded-md px-3 py-1.5 text-sm ${active ? "bg-canvas font-semibold text-ink" : "text-muted hover:text-ink"}`}
              >
                {item.label}
              </Link>
            );
          })}
        </nav>
        <div className="ml-auto flex flex-wrap items-center justify-end gap-x-3 gap-y-1 text-sm">
          <span data-testid="signed-in-as">
            <span className="font-medium">{user.username}</span> <HeldGrants role={user.role} grants={user.grants} />
          </span>
          <Link
            href="/tokens"
            aria-current={pathname === "/tokens" ? "page" : undefined}
            className="rounded-md px-2 py-1.5 text-muted hover:text-ink"
          >
            API tokens
          </Link>
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
