"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { rolloutEndpoints, type RolloutView } from "@/server/rollouts/contract";
import { ApiError, call } from "../api";
import type { Seed } from "../seed";
import { Alert, Button, Section, TextInput } from "../ui";
import { ClusterDecisions } from "./ClusterDecisions";
import { RolloutSettings } from "./RolloutSettings";
import { useRolloutView } from "./live";
import { END_STATES, ENDED_WAVE_STATES, endedWords, STATE_WORDS, stateSegments, statusHeadline } from "./words";

type Me = { id: string; username: string; role: string };
type Action = "approve" | "pause" | "resume" | "abort" | "release";

const may = (role: string, roles: string[]) => role === "admin" || roles.includes(role);

/** Waves drawn as full bars at most; a rollout of hundreds of waves shows the rest as a strip of squares. */
const BARS = 12;

/** The picture of the waves: one bar per wave, a segment per state (around the current wave when there are many). */
function Waves({ view }: { view: RolloutView }) {
  const current = Math.max(
    0,
    view.waves.findIndex((w) => !ENDED_WAVE_STATES.includes(w.state)),
  );
  const from = Math.max(0, Math.min(current - 2, view.waves.length - BARS));
  const shown = view.waves.length > BARS ? view.waves.slice(from, from + BARS) : view.waves;
  return (
    <div className="grid gap-3">
      {view.waves.length > BARS ? <WaveStrip view={view} /> : null}
      <ol className="grid gap-2" aria-label="Waves">
        {shown.map((w) => (
          <li key={w.index} className="grid items-center gap-2 sm:grid-cols-[12rem_1fr_10rem]" data-testid="wave" data-state={w.state}>
            <span className="text-sm font-medium">
              {w.name}
              {w.mandatory ? <span className="ml-2 text-xs text-warn">no failure tolerated</span> : null}
            </span>
            <span
              className="flex h-4 overflow-hidden rounded bg-canvas"
              role="img"
              aria-label={`${w.name}: ${Object.entries(w.counts)
                .map(([s, n]) => `${n} ${STATE_WORDS[s]?.label.toLowerCase() ?? s}`)
                .join(", ")}`}
            >
              {stateSegments(w.counts, w.total).map((s) => (
                <span key={s.state} className={s.className} style={{ width: s.width }} title={`${s.count} ${s.label.toLowerCase()}`} />
              ))}
            </span>
            <span className="text-xs text-muted">
              {STATE_WORDS[w.state]?.label ?? w.state} · {w.total} {w.total === 1 ? "cluster" : "clusters"}
              {/* Where the state alone does not say how its clusters ended (partly skipped, failed, running), the counts do. */}
              {w.state !== "skipped" && (w.counts.failed ?? 0) + (w.counts.skipped ?? 0) > 0 ? ` (${endedWords(w.counts)})` : ""}
            </span>
          </li>
        ))}
      </ol>
    </div>
  );
}

/** Every wave as one small square coloured by its state: hundreds of waves at a glance. */
function WaveStrip({ view }: { view: RolloutView }) {
  return (
    <p
      className="flex flex-wrap gap-0.5"
      role="img"
      aria-label={`${view.waves.length} waves: ${Object.entries(
        view.waves.reduce<Record<string, number>>((n, w) => ({ ...n, [w.state]: (n[w.state] ?? 0) + 1 }), {}),
      )
        .map(([state, n]) => `${n} ${STATE_WORDS[state]?.label.toLowerCase() ?? state}`)
        .join(", ")}`}
      data-testid="wave-strip"
    >
      {view.waves.map((w) => (
        <span
          key={w.index}
          className={`h-2.5 w-2.5 rounded-sm ${STATE_WORDS[w.state]?.className ?? "bg-line"}`}
          title={`${w.name}: ${STATE_WORDS[w.state]?.label ?? w.state}`}
        />
      ))}
    </p>
  );
}

/** Each state's clusters, end states first, counted as they are: the same figures the clusters table lists. */
function RolloutCounts({ view }: { view: RolloutView }) {
  const order = [...END_STATES, "running", "waiting-window", "pending", "excluded"];
  return (
    <ul className="flex flex-wrap gap-x-4 gap-y-1 text-sm" aria-label="Clusters per state" data-testid="rollout-counts">
      {order.map((state) => (
        <li key={state} data-state={state} data-count={view.counts[state] ?? 0}>
          <span className={`mr-1 inline-block h-2 w-2 rounded-sm ${STATE_WORDS[state]?.className ?? "bg-line"}`} />
          {STATE_WORDS[state]?.label ?? state}: <span className="font-medium">{view.counts[state] ?? 0}</span>
        </li>
      ))}
    </ul>
  );
}

/** A rollout's state, refreshed while it can still change, and what the signed-in person may do to it. */
export function RolloutDetail({ initial, me }: { initial: Seed<RolloutView>; me: Me }) {
  const router = useRouter();
  const client = useQueryClient();
  const [comment, setComment] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // The version of the plan this page showed first: approving approves it, and only it.
  const [reviewed] = useState(initial.data.digest);
  const view = useRolloutView(initial).data;
  const act = async (action: Action) => {
    setBusy(true);
    setError(null);
    try {
      const params = { id: String(view.number) };
      const next =
        action === "release"
          ? await call(rolloutEndpoints.release, { params, body: { wave: view.awaitingRelease!, comment } })
          : action === "approve"
            ? await call(rolloutEndpoints.approve, { params, body: { comment, digest: reviewed } })
            : await call(rolloutEndpoints[action], { params, body: { comment } });
      client.setQueryData(["rollouts", view.number], next);
      setComment("");
      router.refresh();
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  // The role says whether the action is theirs at all; the server's `yours` whether their grants cover this rollout's clusters.
  const { yours } = view;
  const actions: [Action, string, boolean][] = [
    [
      "approve",
      "Approve and start",
      view.status === "awaiting-approval" && may(me.role, ["approver"]) && view.createdBy !== me.username && yours.mayApprove,
    ],
    [
      "release",
      `Release ${view.awaitingRelease === null ? "" : (view.waves[view.awaitingRelease]?.name ?? "")}`,
      view.awaitingRelease !== null && ["running", "paused"].includes(view.status) && may(me.role, ["approver"]) && yours.mayRelease,
    ],
    ["pause", "Pause", view.status === "running" && may(me.role, ["technician", "approver"]) && yours.mayPause],
    ["resume", "Resume", view.status === "paused" && may(me.role, ["approver"]) && yours.mayRelease],
    ["abort", "Abort", ["awaiting-approval", "running", "paused"].includes(view.status) && may(me.role, ["approver"]) && yours.mayAbort],
  ];
  const shown = actions.filter(([, , ok]) => ok);
  return (
    <>
      <Section
        title={statusHeadline(view)}
        description={`Planned by ${view.createdBy}${view.approvedBy ? `, approved by ${view.approvedBy}` : ""}. ${view.included} clusters in ${view.waves.length} waves, ${view.excluded} excluded; estimated ${view.estimate ?? "—"}.`}
      >
        <div className="grid gap-3" data-testid="rollout-status" data-status={view.status}>
          {view.statusReason ? <Alert tone={view.status === "paused" ? "error" : "info"}>{view.statusReason}</Alert> : null}
          {view.awaitingRelease !== null && ["running", "paused"].includes(view.status) ? (
            <Alert tone="info">
              {view.waves[view.awaitingRelease]?.name} waits for an approver to release it; the plan asks for each wave to be released.
            </Alert>
          ) : null}
          {yours.outsideScope > 0 ? (
            <p className="text-sm text-muted" data-testid="outside-scope">
              {yours.outsideScope} of its clusters are outside your scope: counted here, not listed.
            </p>
          ) : null}
          {view.status === "awaiting-approval" && !yours.mayApprove && may(me.role, ["approver"]) && view.createdBy !== me.username ? (
            <p className="text-sm text-muted">
              Approving it takes an approver over every one of its clusters; your grants do not cover them all.
            </p>
          ) : null}
          {view.status === "awaiting-approval" && view.createdBy === me.username ? (
            <p className="text-sm text-muted">Someone else with the approver role starts it.</p>
          ) : null}
          <RolloutCounts view={view} />
          <p className="text-sm" data-testid="failure-budget">
            Failures: {view.failed} of {view.failureBudget} tolerated
          </p>
          {shown.length ? (
            <div className="flex flex-wrap items-end gap-2">
              <label className="flex flex-col gap-1 text-sm">
                Comment
                <TextInput value={comment} onChange={(e) => setComment(e.target.value)} placeholder="Why (required to abort)" />
              </label>
              {shown.map(([action, label]) => (
                <Button
                  key={action}
                  type="button"
                  variant={action === "abort" ? "danger" : action === "approve" || action === "release" ? "primary" : "secondary"}
                  disabled={busy}
                  onClick={() => act(action)}
                >
                  {label}
                </Button>
              ))}
            </div>
          ) : null}
          {error ? <Alert tone="error">{error}</Alert> : null}
        </div>
      </Section>
      <RolloutSettings view={view} reviewed={reviewed} />
      <Section title="Waves" description="Each wave starts when the one before has finished and soaked, inside its clusters' windows.">
        <Waves view={view} />
      </Section>
      {["awaiting-approval", "running", "paused"].includes(view.status) && ["approver", "admin"].includes(me.role) && yours.mayAbort ? (
        <Section
          title="Skip, retry or include clusters"
          description="Skipping ends a cluster's part in the rollout; retrying writes a failed cluster again in its wave's turn; an admin may include a cluster its checks excluded. Each decision is recorded with its reason."
        >
          <ClusterDecisions view={view} me={me} />
        </Section>
      ) : null}
    </>
  );
}
