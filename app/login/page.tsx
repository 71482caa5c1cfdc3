import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { LoginForm } from "@/components/LoginForm";
import { currentPageUser } from "@/server/auth/page";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

/** Only same-site paths are followed after sign-in, never another site. */
const safeNext = (value: string | undefined) => (value && value.startsWith("/") && !value.startsWith("//") ? value : "/fleet");

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  const next = safeNext((await searchParams).next);
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
