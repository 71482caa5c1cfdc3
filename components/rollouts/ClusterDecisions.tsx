"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { rolloutEndpoints, type ClusterDecision, type RolloutView } from "@/server/rollouts/contract";
import { ApiError, call } from "../api";
import { Alert, Button, Field, Select, TextInput } from "../ui";

type Me = { username: string; role: string };

const ACTIONS = {
  skip: { label: "Skip", states: ["failed", "pending", "waiting-window", "running"], who: ["approver", "admin"] },
  retry: { label: "Retry", states: ["failed"], who: ["approver", "admin"] },
  include: { label: "Include anyway", states: ["excluded"], who: ["admin"] },
} as const;

const STATE_NAMES: Record<string, string> = {
  failed: "the failed clusters",
  pending: "the pending clusters",
  "waiting-window": "the clusters waiting for their window",
  running: "the running clusters",
  excluded: "the excluded clusters",
};

type DecisionState = NonNullable<ClusterDecision["inState"]>;
/** The most names one decision carries (the API's limit); more in one state are decided in turns. */
const MAX_NAMES = 1000;

/**
 * The clusters in a state, read once when the person picks the state and shown to them: the
 * decision then carries these names and that state, so a cluster that moved on in between is left
 * alone (and named in the answer) instead of being swept up with the rest.
 */
function useClustersIn(number: number, state: DecisionState | null) {
  return useQuery({
    queryKey: ["rollouts", number, "decision", state],
    queryFn: () => call(rolloutEndpoints.clusters, { params: { id: String(number) }, query: { state: state!, limit: MAX_NAMES } }),
    enabled: state !== null,
    // Read afresh each time the state is picked, then held: what is shown is what is sent.
    staleTime: Infinity,
    gcTime: 0,
    refetchOnWindowFocus: false,
    select: (page) => ({ names: page.clusters.map((c) => c.clusterName), more: page.next !== null }),
  });
}

/** The first clusters of a list, and how many more. */
const sample = (list: string[]) => (list.length <= 5 ? list.join(", ") : `${list.slice(0, 5).join(", ")} and ${list.length - 5} more`);

/** Names typed or pasted, one per line or separated by commas or spaces. */
const names = (text: string) => [...new Set(text.split(/[\s,]+/).filter(Boolean))];

/**
 * Skip, retry or include clusters: by name (typed or pasted), or every cluster in a state. One form
 * for the whole rollout, never a control per cluster, so it stays usable at 10,000 clusters.
 */
export function ClusterDecisions({ view, me }: { view: RolloutView; me: Me }) {
  const client = useQueryClient();
  const allowed = (Object.keys(ACTIONS) as (keyof typeof ACTIONS)[]).filter((a) => (ACTIONS[a].who as readonly string[]).includes(me.role));
  const [action, setAction] = useState<keyof typeof ACTIONS>(allowed[0] ?? "skip");
  const [which, setWhich] = useState<string>("names");
  const [typed, setTyped] = useState("");
  const [comment, setComment] = useState("");
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ tone: "ok" | "error"; text: string } | null>(null);
  const byState = which === "names" ? null : (which as DecisionState);
  const seen = useClustersIn(view.number, byState);
  if (!allowed.length || !["awaiting-approval", "running", "paused"].includes(view.status)) return null;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setResult(null);
    if (byState && !seen.data?.names.length) {
      setResult({ tone: "error", text: `No cluster is ${byState} now; pick again` });
      setBusy(false);
      return;
    }
    const body: ClusterDecision = byState
      ? { action, clusters: seen.data!.names, inState: byState, comment }
      : { action, clusters: names(typed), comment };
    try {
      const answer = await call(rolloutEndpoints.decide, { params: { id: String(view.number) }, body });
      client.setQueryData(["rollouts", view.number], answer.rollout);
      // The clusters table and any list read for a decision follow the new state.
      void client.invalidateQueries({ queryKey: ["rollouts", view.number], predicate: (q) => q.queryKey.length > 2 });
      const left = answer.leftAlone.map((c) => `${c.cluster} (${c.state ?? "not in this rollout"})`);
      setResult({
        tone: "ok",
        text: `${ACTIONS[action].label}: ${sample(answer.changed)}${left.length ? `. Left alone, changed since: ${sample(left)}` : ""}`,
      });
      setTyped("");
      setComment("");
      setWhich("names");
    } catch (e) {
      setResult({ tone: "error", text: e instanceof ApiError ? e.message : String(e) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} className="grid gap-3" aria-label="Decide about clusters" data-testid="cluster-decisions">
      <div className="grid gap-3 sm:grid-cols-3">
        <Field label="Action" htmlFor="decision-action">
          <Select id="decision-action" value={action} onChange={(e) => setAction(e.target.value as keyof typeof ACTIONS)}>
            {allowed.map((a) => (
              <option key={a} value={a}>
                {ACTIONS[a].label}
              </option>
            ))}
          </Select>
        </Field>
        <Field label="Clusters" htmlFor="decision-which">
          <Select id="decision-which" value={which} onChange={(e) => setWhich(e.target.value)}>
            <option value="names">Named below</option>
            {ACTIONS[action].states
              // The state picked stays listed when its count drops to 0 meanwhile: its names are still the ones shown.
              .filter((s) => (view.counts[s] ?? 0) > 0 || s === which)
              .map((s) => (
                <option key={s} value={s}>
                  {STATE_NAMES[s]} ({view.counts[s]} now)
                </option>
              ))}
          </Select>
        </Field>
        <Field label="Why" htmlFor="decision-comment" hint="Recorded with the decision">
          <TextInput id="decision-comment" value={comment} onChange={(e) => setComment(e.target.value)} required minLength={3} />
        </Field>
      </div>
      {which === "names" ? (
        <Field label="Cluster names" htmlFor="decision-names" hint="One per line, or separated by commas">
          <textarea
            id="decision-names"
            className="min-h-16 rounded-md border border-line bg-surface p-2 text-sm"
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
          />
        </Field>
      ) : (
        <p className="text-sm" data-testid="decision-clusters">
          {seen.isPending
            ? "Reading the clusters…"
            : seen.data?.names.length
              ? `${ACTIONS[action].label} ${seen.data.names.length === 1 ? "this cluster" : `these ${seen.data.names.length} clusters`}: ${sample(seen.data.names)}${
                  seen.data.more ? ` (the first ${MAX_NAMES}; decide again for the rest)` : ""
                }. One that changes state before you decide is left alone.`
              : `No cluster is ${byState} now.`}
        </p>
      )}
      <div>
        <Button type="submit" disabled={busy || (byState !== null && !seen.data?.names.length)}>
          {ACTIONS[action].label}
        </Button>
      </div>
      {result ? <Alert tone={result.tone}>{result.text}</Alert> : null}
    </form>
  );
}
