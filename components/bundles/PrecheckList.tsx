import type { PrecheckResult, PrecheckStatus } from "@/server/bundles/contract";

const STYLE: Record<PrecheckStatus, { icon: string; className: string; word: string }> = {
  fail: { icon: "✕", className: "border-danger/50 text-danger", word: "Blocks" },
  warn: { icon: "!", className: "border-warn/50 text-warn", word: "Warning" },
  pass: { icon: "✓", className: "border-ok/40 text-ok", word: "OK" },
};
const ORDER: Record<PrecheckStatus, number> = { fail: 0, warn: 1, pass: 2 };

/** The prechecks, most serious first, each with what to do about it; `fresh` marks warnings that appeared since they were read. */
export function PrecheckList({ result, fresh = [] }: { result: PrecheckResult; fresh?: string[] }) {
  const checks = [...result.checks].sort((a, b) => ORDER[a.status] - ORDER[b.status]);
  const count = (s: PrecheckStatus) => checks.filter((c) => c.status === s).length;
  return (
    <section aria-label="Prechecks" className="flex flex-col gap-2">
      <p className="text-sm">
        {result.cluster}: {count("fail")} blocking, {count("warn")} warnings, {count("pass")} fine.
      </p>
      <ul className="flex flex-col gap-2">
        {checks.map((c) => (
          <li
            key={c.key}
            data-check={c.id}
            data-status={c.status}
            data-new={fresh.includes(c.key) ? "true" : undefined}
            className={`rounded-md border-l-4 bg-surface px-3 py-2 text-sm ${STYLE[c.status].className}`}
          >
            <p className="font-medium">
              <span aria-hidden>{STYLE[c.status].icon} </span>
              <span className="sr-only">{STYLE[c.status].word}: </span>
              {fresh.includes(c.key) ? <span className="mr-1 rounded bg-warn/15 px-1 text-xs">New since you checked</span> : null}
              {c.title}
            </p>
            <p className="text-ink">{c.detail}</p>
            {c.remedy ? (
              <p className="mt-1 text-ink">
                <strong>What to do:</strong> {c.remedy}
              </p>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
