import type { Metadata } from "next";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { LoginForm } from "@/components/LoginForm";
import { afterSignIn } from "@/components/sameOriginPath";
import { currentPageUser } from "@/server/auth/page";
import { originOf } from "@/server/http/request";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ next?: string | string[] }> }) {
  const raw = (await searchParams).next;
  // Only a same-origin path is followed after sign-in (components/sameOriginPath.ts), never another site.
  const next = afterSignIn(typeof raw === "string" ? raw : undefined, originOf(await headers()));
  if (await currentPageUser()) redirect(next);
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
        <LoginForm next={next} />
      </div>
    </main>
  );
}
