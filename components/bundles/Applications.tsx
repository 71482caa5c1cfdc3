"use client";

import { formatDate } from "@/lib/format";
import Link from "next/link";
import type { ApplicationRecord } from "@/server/bundles/contract";
import { queries } from "../queries";
import type { Seed } from "../seed";
import { useSeededQuery } from "../seededQuery";
import { Card, Table } from "../ui";
import { STATE_WORDS } from "./words";

/** Every bundle applied to a cluster, newest first, each with a link to follow it. */
export function Applications({ initial }: { initial: Seed<ApplicationRecord[]> }) {
  const applications = useSeededQuery({ ...queries.applications(), refetchInterval: 10_000 }, initial);
  const rows = applications.data;
  return (
    // A card like its neighbours on the bundles page (a Section is the cluster page's smaller heading).
    <Card className="p-5">
      <h2 className="text-lg font-semibold">Applications</h2>
      {rows.length === 0 ? (
        <p className="mt-2 text-sm text-muted">No bundle has been applied yet.</p>
      ) : (
        <Table
          caption="Bundle applications"
          rows={rows}
          rowKey={(a) => a.id}
          columns={[
            { head: "Cluster", cell: (a) => a.cluster },
            { head: "Release", cell: (a) => a.releaseVersion },
            {
              head: "State",
              cell: (a) => (
                <>
                  {STATE_WORDS[a.state]}
                  {a.lastError ? <span className="block text-xs text-danger">{a.lastError}</span> : null}
                </>
              ),
            },
            { head: "Applied by", cell: (a) => a.createdBy },
            { head: "When", cell: (a) => <span className="text-xs">{formatDate(a.createdAt)}</span> },
            {
              head: "",
              cell: (a) => (
                <Link className="font-medium text-accent hover:underline" href={`/bundles/applications/${a.id}`}>
                  Follow
                </Link>
              ),
            },
          ]}
        />
      )}
    </Card>
  );
}
