import type { AlertmanagerState } from "./contract";

/**
 * Reads an Alertmanager's v2 API (GET /api/v2/alerts, GET /api/v2/silences; prometheus/alertmanager
 * api/v2/openapi.yaml) for the alert list: its Fleetskew alerts and the OpenShift alerts they
 * complement, and its silences that are not expired. A bad URL, a refused connection, a slow or
 * wrong answer all come back as `{status: "error"}` naming what happened, within TIMEOUT_MS: the
 * page never waits longer on it. Answers are kept for CACHE_MS, so a dead Alertmanager costs one
 * timeout per interval, not one per page view.
 */
export const TIMEOUT_MS = 1500;
const CACHE_MS = 10_000;
const MAX_ALERTS = 200;
const MAX_SILENCES = 100;

/** The OpenShift alerts next to Fleetskew's (docs/alerts.md), shown beside them when the Alertmanager has them. */
export const OPENSHIFT_ALERTS = new Set([
  "ClusterNotUpgradeable",
  "UpdateAvailable",
  "ClusterReleaseNotAccepted",
  "CannotRetrieveUpdates",
  "MCCBootImageSkewEnforcementNone",
  "MCCDrainError",
  "MCCPoolAlert",
  "MCDRebootError",
  "MCDPivotError",
]);
const shown = (labels: Record<string, string>) =>
  (labels.alertname ?? "").startsWith("Fleetskew") || OPENSHIFT_ALERTS.has(labels.alertname ?? "");

type Gettable = {
  fingerprint?: unknown;
  labels?: unknown;
  annotations?: unknown;
  startsAt?: unknown;
  status?: { state?: unknown; silencedBy?: unknown };
};
type Silence = {
  id?: unknown;
  matchers?: unknown;
  createdBy?: unknown;
  comment?: unknown;
  startsAt?: unknown;
  endsAt?: unknown;
  status?: { state?: unknown };
};

const str = (v: unknown) => (typeof v === "string" ? v : "");
const strings = (v: unknown): Record<string, string> =>
  v && typeof v === "object" ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === "string")) : {};

async function getJson(url: string, signal: AbortSignal): Promise<unknown[]> {
  const response = await fetch(url, { signal, headers: { accept: "application/json" }, redirect: "error" });
  if (!response.ok) throw new Error(`${new URL(url).pathname} answered HTTP ${response.status}`);
  const body: unknown = await response.json().catch(() => {
    throw new Error(`${new URL(url).pathname} did not answer JSON: is this an Alertmanager?`);
  });
  if (!Array.isArray(body)) throw new Error(`${new URL(url).pathname} did not answer a list: is this an Alertmanager v2 API?`);
  return body;
}

function describeFailure(error: unknown): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError"))
    return `no answer within ${TIMEOUT_MS / 1000} s`;
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  if (cause?.code === "ECONNREFUSED") return "connection refused";
  if (cause?.code === "ENOTFOUND" || cause?.code === "EAI_AGAIN") return "host not found";
  return cause?.message ?? (error instanceof Error ? error.message : String(error));
}

export async function readAlertmanager(base: string): Promise<AlertmanagerState> {
  const signal = AbortSignal.timeout(TIMEOUT_MS);
  try {
    const [alerts, silences] = await Promise.all([
      getJson(`${base}/api/v2/alerts?active=true&silenced=true&inhibited=true`, signal),
      getJson(`${base}/api/v2/silences`, signal),
    ]);
    const ours = (alerts as Gettable[]).filter((a) => shown(strings(a?.labels)));
    const live = (silences as Silence[]).filter((s) => str(s?.status?.state) !== "expired");
    return {
      status: "ok",
      url: base,
      alerts: ours.slice(0, MAX_ALERTS).map((a) => ({
        fingerprint: str(a.fingerprint),
        labels: strings(a.labels),
        annotations: strings(a.annotations),
        startsAt: str(a.startsAt),
        state: str(a.status?.state) || "unknown",
        silencedBy: Array.isArray(a.status?.silencedBy) ? a.status.silencedBy.map(str) : [],
      })),
      silences: live.slice(0, MAX_SILENCES).map((s) => ({
        id: str(s.id),
        matchers: (Array.isArray(s.matchers) ? s.matchers : []).map((m: Record<string, unknown>) => ({
          name: str(m?.name),
          value: str(m?.value),
          isRegex: m?.isRegex === true,
          isEqual: m?.isEqual !== false,
        })),
        createdBy: str(s.createdBy),
        comment: str(s.comment),
        startsAt: str(s.startsAt),
        endsAt: str(s.endsAt),
        state: str(s.status?.state),
      })),
      truncated: ours.length > MAX_ALERTS || live.length > MAX_SILENCES,
    };
  } catch (error) {
    return { status: "error", url: base, error: describeFailure(error) };
  }
}

let cached: { url: string; at: number; answer: Promise<AlertmanagerState> } | null = null;

/** The Alertmanager's state as of at most CACHE_MS ago; concurrent callers share one read. */
export function alertmanagerState(url: string | undefined, now = Date.now()): Promise<AlertmanagerState> {
  if (!url) return Promise.resolve({ status: "not-configured" });
  if (!cached || cached.url !== url || now - cached.at > CACHE_MS) cached = { url, at: now, answer: readAlertmanager(url) };
  return cached.answer;
}
