import { formatDate } from "@/lib/format";
import type { CheckStatus, SkewStatus } from "@/server/fleet/contract";

/** Words and colours for skew and readiness, the same on every page. */
export const SKEW: Record<SkewStatus, { label: string; className: string; color: string; hint: string }> = {
  blocked: {
    label: "Blocked",
    className: "bg-danger/10 text-danger",
    color: "#c0392b",
    hint: "Upgradeable=False: minor updates are blocked now",
  },
  "at-risk": {
    label: "At risk",
    className: "bg-warn/10 text-warn",
    color: "#d68910",
    hint: "will be blocked from minor updates once at the first enforcing release",
  },
  "opted-out": { label: "Opted out", className: "bg-muted/10 text-muted", color: "#7f8c8d", hint: "skew enforcement is off (mode None)" },
  ok: { label: "Within limit", className: "bg-ok/10 text-ok", color: "#27ae60", hint: "boot images are within the skew limit" },
  unknown: { label: "Unknown", className: "bg-muted/10 text-muted", color: "#95a5a6", hint: "not read yet" },
};

export const READINESS: Record<CheckStatus, { label: string; className: string; icon: string }> = {
  fail: { label: "Blocked", className: "bg-danger/10 text-danger", icon: "✕" },
  warn: { label: "Warnings", className: "bg-warn/10 text-warn", icon: "!" },
  pass: { label: "Ready", className: "bg-ok/10 text-ok", icon: "✓" },
  unknown: { label: "Unknown", className: "bg-muted/10 text-muted", icon: "?" },
};

export function SkewBadge({ status, title }: { status: SkewStatus; title?: string | null }) {
  const s = SKEW[status] ?? SKEW.unknown;
  return (
    <span title={title ?? s.hint} className={`inline-flex items-center rounded px-2 py-0.5 text-xs font-medium ${s.className}`}>
      {s.label}
    </span>
  );
}

export function ReadinessBadge({ status, title }: { status: CheckStatus; title?: string | null }) {
  const r = READINESS[status] ?? READINESS.unknown;
  return (
    <span title={title ?? undefined} className={`inline-flex items-center gap-1 rounded px-2 py-0.5 text-xs font-medium ${r.className}`}>
      <span aria-hidden>{r.icon}</span>
      {r.label}
    </span>
  );
}

/** A chart legend's words in the page's ink, readable in both themes; the swatch beside them keeps the series colour. */
export const legendText = (value: string) => <span className="text-ink">{value}</span>;

/** "Last updated 27 Nov 2026, 21:37:05 UTC", refreshed with the data it describes. */
export function LastUpdated({ at, fetching }: { at: number; fetching: boolean }) {
  if (!at) return null;
  return (
    <p className="text-xs text-muted" aria-live="polite">
      {fetching ? "Refreshing… " : ""}Last updated {formatDate(at, { seconds: true })}
    </p>
  );
}
