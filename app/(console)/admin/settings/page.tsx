import type { Metadata } from "next";
import { seed } from "@/components/seed";
import { SignInSettingsAdmin } from "@/components/SignInSettingsAdmin";
import { SkewLimitsAdmin } from "@/components/SkewLimitsAdmin";
import { PageHeader } from "@/components/ui";
import { SECTIONS } from "@/server/auth/navigation";
import { requirePageUser } from "@/server/auth/page";
import { signInSettingsView } from "@/server/auth/signInSettings";
import { skewLimitTable } from "@/server/fleet/skewLimits";

export const metadata: Metadata = { title: "Settings" };

export default async function SettingsPage() {
  await requirePageUser(SECTIONS.admin.access);
  return (
    <>
      <PageHeader title="Settings" description="Facts Fleetskew cannot read from a cluster, and how people sign in." />
      <SkewLimitsAdmin initial={seed(await skewLimitTable())} />
      <SignInSettingsAdmin initial={seed(await signInSettingsView())} />
    </>
  );
}
