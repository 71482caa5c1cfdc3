"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import type { Readiness } from "@/server/fleet/contract";
import { acknowledgementLink, callsForAcknowledgement, LinkedText } from "../../LinkedText";
import { queries } from "../../queries";
import { Alert, Button, Section, TextInput } from "../../ui";
import { READINESS, ReadinessBadge } from "../status";

/** The readiness checklist for a target version the person chooses (the next minor at first). */
export function ReadinessPanel({ cluster, initial }: { cluster: string; initial: Readiness | null }) {
  const [draft, setDraft] = useState(initial?.target ?? "");
  const [target, setTarget] = useState<string | null>(null);
  const q = useQuery({
    ...queries.readiness(cluster, target),
    initialData: target === null ? (initial ?? undefined) : undefined,
    refetchInterval: 30_000,
  });
  const r = q.data;
  const order = { fail: 0, warn: 1, unknown: 2, pass: 3 };
  return (
    <Section
      title="Upgrade readiness"
      description="Checks with OpenShift's own signals for a target version. A failed check blocks the update; a warning needs a look first."
    >
      <form
        className="flex flex-wrap items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          setTarget(draft.trim() || null);
        }}
      >
        <label className="flex flex-col gap-1 text-sm">
          <span className="font-medium">Target version</span>
          <TextInput
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            placeholder="4.22.3"
            className="w-32"
            aria-describedby="target-hint"
          />
        </label>
        <Button type="submit">Check</Button>
        <span id="target-hint" className="pb-2 text-xs text-muted">
          Default: the next minor release. A z-stream (same minor) is not blocked by Upgradeable=False.
        </span>
      </form>
      {q.error ? (
        <div className="mt-3">
          <Alert tone="error">{(q.error as Error).message}</Alert>
        </div>
      ) : null}
      {r ? (
        <div className="mt-4">
          <p className="flex flex-wrap items-center gap-2 text-sm">
            <ReadinessBadge status={r.status} /> {r.current ?? "?"} → <strong>{r.target}</strong>{" "}
            <span className="text-muted">({r.updateKind} update)</span>{" "}
            {r.status !== "fail" && r.updateKind !== "same" && r.updateKind !== "invalid" && r.updateKind !== "downgrade" ? (
              <a
                className="font-medium text-accent hover:underline"
                href={`/rollouts?${new URLSearchParams({ kind: "upgrade", target: r.target, clusters: cluster })}`}
              >
                Plan a rollout to {r.target}
              </a>
            ) : null}
          </p>
          <ul className="mt-3 divide-y divide-line" aria-label={`Readiness checks for ${r.target}`}>
            {[...r.checks]
              .sort((a, b) => order[a.status] - order[b.status])
              .map((c) => (
                <li key={c.id} className="py-2" data-check={c.id} data-status={c.status}>
                  <div className="flex items-start gap-2">
                    <span
                      className={`mt-0.5 inline-flex h-5 w-5 shrink-0 items-center justify-center rounded-full text-xs ${READINESS[c.status].className}`}
                      aria-label={READINESS[c.status].label}
                    >
                      {READINESS[c.status].icon}
                    </span>
                    <div className="min-w-0">
                      <p className="font-medium">{c.title}</p>
                      <p className="text-sm">
                        <LinkedText text={c.detail} cluster={cluster} />
                      </p>
                      {c.remediation ? (
                        <p className="mt-1 text-sm text-muted">
                          What to do: <LinkedText text={c.remediation} cluster={cluster} />
                        </p>
                      ) : null}
                      {c.status !== "pass" && callsForAcknowledgement(c.remediation) ? (
                        <a
                          className="mt-1 inline-block text-sm font-medium text-accent hover:underline"
                          href={acknowledgementLink(cluster)}
                        >
                          Request acknowledgement
                        </a>
                      ) : null}
                      {c.evidence.length ? (
                        <p className="mt-1 font-mono text-xs text-muted [overflow-wrap:anywhere]">
                          {c.evidence
                            .map((e) => `${e.kind}/${e.namespace ? `${e.namespace}/` : ""}${e.name}${e.field ? ` ${e.field}` : ""}`)
                            .join(" · ")}
                        </p>
                      ) : null}
                    </div>
                  </div>
                </li>
              ))}
          </ul>
        </div>
      ) : null}
    </Section>
  );
}
