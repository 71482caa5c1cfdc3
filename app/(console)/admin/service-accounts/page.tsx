import type { Metadata } from "next";
import { ServiceAccountsAdmin } from "@/components/tokens/ServiceAccountsAdmin";
import { seed } from "@/components/seed";
import { PageHeader } from "@/components/ui";
import { SECTIONS } from "@/server/auth/navigation";
import { requirePageUser } from "@/server/auth/page";
import { serviceAccounts } from "@/server/tokens/serviceAccounts";

export const metadata: Metadata = { title: "Service accounts" };

export default async function ServiceAccountsPage() {
  await requirePageUser(SECTIONS.admin.access);
  return (
    <>
      <PageHeader
        title="Service accounts"
        description="Accounts for pipelines and other programs: they never sign in, act only through their API tokens, and never approve. Disabling one revokes all its tokens at once."
      />
      <ServiceAccountsAdmin initial={seed(await serviceAccounts())} />
    </>
  );
}
