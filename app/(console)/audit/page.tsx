import type { Metadata } from "next";
import { AuditLog } from "@/components/AuditLog";
import { seed } from "@/components/seed";
import { PageHeader } from "@/components/ui";
import { SECTIONS } from "@/server/auth/navigation";
import { requirePageActor } from "@/server/auth/page";
import { auditPage } from "@/server/audit/audit";

export const metadata: Metadata = { title: "Audit" };

export default async function AuditPage() {
  const actor = await requirePageActor(SECTIONS.audit.access);
  const { events } = await auditPage({ limit: 100 }, actor);
  return (
    <>
      <PageHeader title="Audit log" description="Every sign-in and every change made through Fleetskew, newest first." />
      <AuditLog initial={seed(events)} />
    </>
  );
}
