"use client";

import { formatDate } from "@/lib/format";
import { useMutation } from "@tanstack/react-query";
import { useSearchParams } from "next/navigation";
import { useEffect, useMemo, useRef, useState } from "react";
import { parseAllDocuments } from "yaml";
import { MAX_FLEET_PREVIEW_CLUSTERS, previewEndpoints, type PoolPreview } from "@/server/preview/contract";
import { call } from "./api";
import { ClusterSelection } from "./ClusterSelection";
import { fleetLinkToNames } from "./selectionText";
import { Alert, Button, Card, Field } from "./ui";

/** The engine cites its rule book ("§4 step 5") for scripts and docs; on screen the sentence says enough. */
const withoutRuleReferences = (text: string) => text.replace(/\s*\(§[^)]*\)/g, "").replace(/\s*§\d+(\.\d+)?( step \d+)?/g, "");

const EXAMPLE = `apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfig
metadata:
  name: 99-worker-chrony
  labels:
    machineconfiguration.openshift.io/role: worker
spec:
  config:
    ignition:
      version: 3.5.0
    storage:
      files:
        - path: /etc/chrony.conf
          mode: 420
          overwrite: true
          contents:
            source: data:,server%20ntp.example.com%20iburst%0A
`;

/** One side of a changed file as shown: its text, or why it is not shown. */
function fileSide(f: PoolPreview["files"][number], side: "before" | "after"): string {
  const text = f[side];
  if (text !== null) return text;
  if (f.shown === "secret")
    return f.digests?.[side] ? `(not shown; digest ${f.digests[side]})` : side === "before" ? "(absent)" : "(removed)";
  if (f.shown === "none" || (f.shown === "submitted" && side === "before")) return "(not shown to your role)";
  return side === "before" ? "(absent)" : "(removed)";
}

function verdictTone(verdict: string) {
  if (verdict === "Refused") return "bg-danger text-accent-ink";
  if (verdict === "Reboot" || verdict.startsWith("Drain")) return "bg-warn text-accent-ink";
  if (verdict === "No disruption") return "bg-ok text-accent-ink";
  if (verdict === "Unknown") return "bg-canvas text-ink";
  return "bg-accent text-accent-ink";
}

/** Syntax errors of the pasted YAML with their line, checked as the user types. */
function yamlProblems(text: string): string[] {
  if (!text.trim()) return [];
  const docs = parseAllDocuments(text);
  const list = Array.isArray(docs) ? docs : [docs];
  return list.flatMap((d) => d.errors.map((e) => `Line ${e.linePos?.[0]?.line ?? "?"}: ${e.message.split("\n")[0]}`));
}

const GROUPS = [
  ["reboot", "Reboots"],
  ["other", "No reboot"],
  ["refused", "Refused"],
  ["unmatched", "Left out (no pool selects it)"],
  ["failed", "Could not be previewed"],
] as const;

/** Each group of the summary with its clusters named, each a jump to its card, and all of them as a fleet view. */
function SummaryLinks({ names }: { names: Record<(typeof GROUPS)[number][0], string[]> }) {
  const shown = 5;
  return (
    <ul className="flex flex-col gap-1 text-sm" aria-label="Clusters by verdict" data-testid="verdict-clusters">
      {GROUPS.filter(([key]) => names[key].length).map(([key, label]) => (
        <li key={key} data-group={key}>
          <span className="font-medium">{label}:</span>{" "}
          {names[key].slice(0, shown).map((n, i) => (
            <span key={n}>
              {i ? ", " : ""}
              <a className="text-accent hover:underline" href={`#preview-${n}`}>
                {n}
              </a>
            </span>
          ))}
          {names[key].length > shown ? ` and ${names[key].length - shown} more` : ""}{" "}
          <a className="text-xs text-accent hover:underline" href={fleetLinkToNames(names[key].slice(0, 1000))}>
            ({names[key].length === 1 ? "in" : `all ${names[key].length} in`} the fleet view)
          </a>
        </li>
      ))}
    </ul>
  );
}

export function PreviewWorkbench() {
  const [yaml, setYaml] = useState(EXAMPLE);
  // What was typed or pasted before the page's scripts ran is in the textarea, not in the state:
  // take it on mount, or the next render would put the example back over it.
  const editor = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    const typed = editor.current?.value;
    if (typed !== undefined && typed !== EXAMPLE) setYaml(typed);
  }, []);
  // The fleet view's filters, when the person came from there ("Preview on these clusters").
  const params = useSearchParams();
  const [query, setQuery] = useState(() => params.get("query") ?? "");
  const problems = useMemo(() => yamlProblems(yaml), [yaml]);

  // One fleet preview: the server judges each cluster and sums them up (refused and unjudged pools included).
  const run = useMutation({
    // Offline imports are never contacted: the server previews the live clusters the selection matches.
    mutationFn: () => call(previewEndpoints.fleet, { body: { machineConfig: yaml, clusters: { query } } }),
  });
  const summary = run.data?.summary.text;
  // The answer appears below the form: bring it into view when it arrives.
  const answerRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (run.data || run.error) answerRef.current?.scrollIntoView({ behavior: "smooth", block: "start" });
  }, [run.data, run.error]);

  return (
    <div className="flex flex-col gap-6">
      <Card className="p-5">
        <form
          aria-label="Preview a MachineConfig"
          className="flex flex-col gap-4"
          onSubmit={(e) => {
            e.preventDefault();
            run.mutate();
          }}
        >
          <Field
            label="MachineConfig (YAML or JSON)"
            htmlFor="mc-yaml"
            hint="Paste a MachineConfig, or upload one. It replaces a MachineConfig of the same name, or is added."
          >
            <textarea
              id="mc-yaml"
              ref={editor}
              value={yaml}
              spellCheck={false}
              onChange={(e) => setYaml(e.target.value)}
              aria-invalid={problems.length > 0}
              aria-describedby="mc-yaml-problems"
              className="min-h-72 rounded-md border border-line bg-surface px-3 py-2 font-mono text-xs text-ink"
            />
          </Field>
          <input
            type="file"
            aria-label="Upload a MachineConfig file"
            accept=".yaml,.yml,.json"
            className="text-sm"
            onChange={async (e) => {
              const f = e.target.files?.[0];
              if (f) setYaml(await f.text());
            }}
          />
          <div id="mc-yaml-problems">{problems.length ? <Alert tone="error">{problems.join("; ")}</Alert> : null}</div>
          <ClusterSelection query={query} onChange={setQuery} max={MAX_FLEET_PREVIEW_CLUSTERS} />
          <div>
            <Button type="submit" disabled={problems.length > 0 || run.isPending}>
              {run.isPending ? "Previewing…" : "Preview on the matching clusters"}
            </Button>
          </div>
        </form>
      </Card>

      <div ref={answerRef} className="scroll-mt-4" />
      {run.error ? <Alert tone="error">{run.error.message}</Alert> : null}

      {summary ? (
        <p className="text-sm" role="status">
          {summary.charAt(0).toUpperCase() + summary.slice(1)}.
        </p>
      ) : null}
      {run.data ? <SummaryLinks names={run.data.summary.names} /> : null}

      {run.data?.clusters.map((r) => (
        <Card key={r.cluster} className="p-5">
          <section aria-label={`Preview for ${r.cluster}`} id={`preview-${r.cluster}`} className="scroll-mt-4">
            <h2 className="text-lg font-semibold">
              <a className="hover:underline" href={`/clusters/${encodeURIComponent(r.cluster)}`}>
                {r.cluster}
              </a>
            </h2>
            {"error" in r ? <Alert tone="error">{r.error}</Alert> : null}
            {"pools" in r ? (
              <>
                {r.source === "stored" ? <Alert tone="info">{r.sourceNote}</Alert> : null}
                <p className="text-xs text-muted">
                  {r.source === "live" ? "Live configuration" : `Configuration as of ${formatDate(r.observedAt)}`}; policy from{" "}
                  {r.policySource === "cluster-status"
                    ? "the cluster's MachineConfiguration status"
                    : r.policySource === "defaults"
                      ? "the MCO defaults"
                      : "its spec merged with the defaults"}
                </p>
                {r.unmatched ? <Alert tone="info">{r.unmatched}</Alert> : null}
                {r.pools.map((p) => (
                  <div key={p.pool} className="mt-4 border-t border-line pt-4" data-pool={p.pool}>
                    <div className="flex flex-wrap items-center gap-3">
                      <h3 className="font-semibold">Pool {p.pool}</h3>
                      <span className={`rounded px-2 py-0.5 text-sm font-semibold ${verdictTone(p.verdict)}`} data-verdict>
                        {p.verdict}
                      </span>
                      <span className="text-sm text-muted">
                        {p.nodes} node{p.nodes === 1 ? "" : "s"} affected
                      </span>
                    </div>
                    {p.preview.unreconcilable.length ? (
                      <ul className="mt-2 list-disc pl-5 text-sm text-danger">
                        {p.preview.unreconcilable.map((u) => (
                          <li key={u}>{withoutRuleReferences(u)}</li>
                        ))}
                      </ul>
                    ) : null}
                    {p.preview.drainReason ? <p className="mt-1 text-sm">Drain: {withoutRuleReferences(p.preview.drainReason)}</p> : null}
                    {[...p.notes, ...p.preview.warnings].map((n) => (
                      <p key={n} className="mt-1 text-sm text-muted">
                        {withoutRuleReferences(n)}
                      </p>
                    ))}
                    {p.preview.mcoRelease ? (
                      <p className="mt-1 text-xs text-muted">
                        Predicted by the rules of the {p.preview.mcoRelease} Machine Config Operator.
                      </p>
                    ) : null}
                    {p.preview.changes.length ? (
                      <table className="mt-3 w-full text-left text-sm">
                        <caption className="sr-only">Changes in pool {p.pool} and what decided them</caption>
                        <thead className="text-muted">
                          <tr>
                            <th scope="col" className="py-1 pr-3 font-medium">
                              Change
                            </th>
                            <th scope="col" className="py-1 pr-3 font-medium">
                              What
                            </th>
                            <th scope="col" className="py-1 pr-3 font-medium">
                              Actions
                            </th>
                            <th scope="col" className="py-1 font-medium">
                              Decided by
                            </th>
                          </tr>
                        </thead>
                        <tbody>
                          {p.preview.changes.map((c) => (
                            <tr key={`${c.kind}:${c.name}`} className="border-t border-line align-top">
                              <td className="py-1 pr-3">{c.change}</td>
                              <td className="py-1 pr-3 font-mono text-xs">{c.name}</td>
                              <td className="py-1 pr-3">{c.actionWords.join(", ") || "—"}</td>
                              <td className="py-1 text-muted">{withoutRuleReferences(c.decidedBy)}</td>
                            </tr>
                          ))}
                        </tbody>
                      </table>
                    ) : null}
                    {p.files.map((f) => (
                      <details key={f.path} className="mt-2">
                        <summary className="cursor-pointer text-sm">Before and after: {f.path}</summary>
                        {f.note ? <p className="text-xs text-muted">{f.note}</p> : null}
                        <div className="mt-2 grid gap-2 md:grid-cols-2">
                          <pre className="overflow-x-auto rounded bg-canvas p-2 text-xs" aria-label={`${f.path} before`}>
                            {fileSide(f, "before")}
                          </pre>
                          <pre className="overflow-x-auto rounded bg-canvas p-2 text-xs" aria-label={`${f.path} after`}>
                            {fileSide(f, "after")}
                          </pre>
                        </div>
                      </details>
                    ))}
                  </div>
                ))}
              </>
            ) : null}
          </section>
        </Card>
      ))}
    </div>
  );
}
