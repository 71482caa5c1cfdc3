"use client";

import type { ApplicationRecord } from "@/server/bundles/contract";
import { can, type Me } from "../access";
import type { Seed } from "../seed";
import { Applications } from "./Applications";
import { ApplyBundle } from "./ApplyBundle";
import { VettedList } from "./VettedBundles";

/** The bundles page: a technician applies a bundle, everyone follows the applications, approvers vet digests. */
export function BundlesView({ me, applications }: { me: Me; applications: Seed<ApplicationRecord[]> }) {
  return (
    <div className="flex flex-col gap-6">
      {can(me, ["technician"]) ? <ApplyBundle /> : null}
      <Applications initial={applications} />
      {can(me, ["technician", "approver"]) ? <VettedList me={me} /> : null}
    </div>
  );
}
