"use client";

import type { ClusterDetail } from "@/server/fleet/contract";
import { queries } from "../queries";
import type { Seed } from "../seed";
import { useSeededQuery } from "../seededQuery";
import { Card, Section } from "../ui";
import { ClusterHeader } from "./cluster/ClusterHeader";
import { Conditions } from "./cluster/Conditions";
import { MachineSets } from "./cluster/MachineSets";
import { PoolsAndNodes } from "./cluster/PoolsAndNodes";
import { ReadinessPanel } from "./cluster/ReadinessPanel";
import { RegistryLess } from "./cluster/RegistryLess";
import { SkewMcoWay } from "./cluster/SkewMcoWay";
import { SkewTimelineChart } from "./SkewTimelineChart";
import { LastUpdated } from "./status";

/**
 * One cluster's page: its skew, history, MachineSets, readiness, registry-less releases, pools and
 * nodes, as of the newest sweep.
 */
export function ClusterView({ name, initial }: { name: string; initial: Seed<ClusterDetail> }) {
  const q = useSeededQuery({ ...queries.cluster(name), refetchInterval: 15_000 }, initial);
  const d = q.data;
  const s = d.snapshot;
  const a = d.skew?.assessment;
  return (
    <div className="flex flex-col gap-4">
      <ClusterHeader detail={d} updated={<LastUpdated at={q.dataUpdatedAt} fetching={q.isFetching} />} />
      {!s ? (
        <Card className="p-6 text-center text-muted">
          The collector has not read this cluster yet. It will appear here after its first sweep.
        </Card>
      ) : (
        <>
          {a ? <SkewMcoWay a={a} /> : null}
          <SkewTimelineChart cluster={name} />
          <MachineSets detail={d} />
          <ReadinessPanel cluster={name} initial={d.readiness} />
          <RegistryLess state={d.registryLess ?? null} s={s} />
          <PoolsAndNodes s={s} />
          <Section title="Conditions">
            <Conditions title="ClusterVersion" conditions={s.version?.conditions} />
            <Conditions title="ClusterOperator machine-config" conditions={s.machineConfigOperator} />
          </Section>
          {s.problems.length ? (
            <Section title="What could not be read" description="Parts of the cluster Fleetskew could not read; the rest stands.">
              <ul className="list-disc pl-5 text-sm">
                {s.problems.map((p, i) => (
                  <li key={i}>
                    <strong>{p.part}</strong>: {p.message}
                  </li>
                ))}
              </ul>
            </Section>
          ) : null}
        </>
      )}
    </div>
  );
}
