"use client";

import Link from "next/link";
import type { ApplicationRecord } from "@/server/bundles/contract";
import { queries } from "../queries";
import type { Seed } from "../seed";
import { useSeededQuery } from "../seededQuery";
import { Section, Table } from "../ui";
import { STATE_WORDS } from "./words";

/** Every bundle applied to a cluster, newest first, each with a link to follow it. */
export function Applications({ initial }: { initial: Seed<ApplicationRecord[]> }) {
  const applications = useSeededQuery({ ...queries.applications(), refetchInterval: 10_000 }, initial);
  const rows = applications.data;
  return (
    <Section title="Applications">
      {rows.length === 0 ? (
        <p className="text-sm text-muted">No bundle has been applied yet.</p>
      ) : (
        <Table
          caption="Bundle applications"
          head={["Cluster", "Release", "State", "Applied by", "When", ""]}
          rowProps={(i) => ({ key: rows[i]!.id })}
          rows={rows.map((a) => [
            a.cluster,
            a.releaseVersion,
            <>
              {STATE_WORDS[a.state]}
              {a.lastError ? <span className="block text-xs text-danger">{a.lastError}</span> : null}
            </>,
            a.createdBy,
            <span className="text-xs">{new Date(a.createdAt).toLocaleString()}</span>,
            <Link className="font-medium text-accent hover:underline" href={`/bundles/applications/${a.id}`}>
              Follow
            </Link>,
          ])}
        />
      )}
    </Section>
  );
}
