"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
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
  failed: "every failed cluster",
  pending: "every pending cluster",
  "waiting-window": "every cluster waiting for its window",
  running: "every running cluster",
  excluded: "every excluded cluster",
};

/** Names typed or pasted, one per line or separated by commas or spaces. */
const names = (text: string) => [...new Set(text.split(/[\s,]+/).filter(Boolean))];

/**
 * Skip, retry or include clusters: by name (typed or pasted), or every cluster in a state. One form
 * for the whole rollout, never a control per cluster, so it stays usable at 10,000 clusters.
 */
export function ClusterDecisions({ view, me }: { view: RolloutView; me: Me }) {
  const router = useRouter();
  const client = useQueryClient();
  const allowed = (Object.keys(ACTIONS) as (keyof typeof ACTIONS)[]).filter((a) => (ACTIONS[a].who as readonly string[]).includes(me.role));
  const [action, setAction] = useState<keyof typeof ACTIONS>(allowed[0] ?? "skip");
  const [which, setWhich] = useState<string>("names");
  const [typed, setTyped] = useState("");
  const [comment, setComment] = useState("");
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ tone: "ok" | "error"; text: string } | null>(null);
  if (!allowed.length || !["awaiting-approval", "running", "paused"].includes(view.status)) return null;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setResult(null);
    const body: ClusterDecision =
      which === "names"
        ? { action, clusters: names(typed), comment }
        : { action, inState: which as NonNullable<ClusterDecision["inState"]>, comment };
    try {
      const answer = await call(rolloutEndpoints.decide, { params: { id: String(view.number) }, body });
      client.setQueryData(["rollouts", view.number], answer.rollout);
      const shown =
        answer.changed.length <= 5
          ? answer.changed.join(", ")
          : `${answer.changed.slice(0, 5).join(", ")} and ${answer.changed.length - 5} more`;
      setResult({ tone: "ok", text: `${ACTIONS[action].label}: ${shown}` });
      setTyped("");
      setComment("");
      router.refresh();
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
              .filter((s) => (view.counts[s] ?? 0) > 0)
              .map((s) => (
                <option key={s} value={s}>
                  {STATE_NAMES[s]} ({view.counts[s]})
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
      ) : null}
      <div>
        <Button type="submit" disabled={busy}>
          {ACTIONS[action].label}
        </Button>
      </div>
      {result ? <Alert tone={result.tone}>{result.text}</Alert> : null}
    </form>
  );
}
