import type { ReactNode } from "react";
import { SubNav } from "@/components/SubNav";
import { SECTIONS } from "@/server/auth/navigation";
import { requirePageUser } from "@/server/auth/page";

export default async function AdminLayout({ children }: { children: ReactNode }) {
  await requirePageUser(SECTIONS.admin.access);
  return (
    <>
      <SubNav
        label="Admin"
        items={[
          { href: "/admin", label: "Users" },
          { href: "/admin/service-accounts", label: "Service accounts" },
          { href: "/admin/clusters", label: "Clusters" },
          { href: "/admin/hubs", label: "Hubs" },
          { href: "/admin/settings", label: "Settings" },
        ]}
      />
      {children}
    </>
  );
}
