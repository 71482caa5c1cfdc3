import type { ReactNode } from "react";
import { AppHeader } from "@/components/AppHeader";
import { navigationFor } from "@/server/auth/navigation";
import { requirePageUser } from "@/server/auth/page";

export const dynamic = "force-dynamic";

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const user = await requirePageUser("any");
  return (
    <>
      <AppHeader
        user={{ username: user.username, role: user.role, grants: user.grants }}
        items={navigationFor(user.grants.map((g) => g.role))}
      />
      <main id="main" className="mx-auto max-w-7xl px-4 py-8">
        {children}
      </main>
    </>
  );
}
