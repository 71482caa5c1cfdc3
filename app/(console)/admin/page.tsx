import type { Metadata } from "next";
import { UsersAdmin } from "@/components/UsersAdmin";
import { seed } from "@/components/seed";
import { PageHeader } from "@/components/ui";
import { SECTIONS } from "@/server/auth/navigation";
import { requirePageUser } from "@/server/auth/page";
import { ROLE_DESCRIPTIONS } from "@/server/auth/roles";
import { listUsersWithTokens } from "@/server/auth/users";

export const metadata: Metadata = { title: "Admin" };

export default async function AdminPage() {
  const me = await requirePageUser(SECTIONS.admin.access);
  const users = await listUsersWithTokens();
  return (
    <>
      <PageHeader title="Users" description="Who can sign in to Fleetskew and what each person may do." />
      <UsersAdmin initial={seed(users)} me={me.id} roleDescriptions={ROLE_DESCRIPTIONS} />
    </>
  );
}
