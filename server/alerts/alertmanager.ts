import type { AlertmanagerState } from "./contract";

/**
 * Reads an Alertmanager's v2 API (GET /api/v2/alerts, GET /api/v2/silences; prometheus/alertmanager
 * api/v2/openapi.yaml) for the alert list: its Fleetskew alerts and the OpenShift alerts they
 * complement, and its silences that are not expired. A bad URL, a refused connection, a slow or
 * wrong answer all come back as `{status: "error"}` naming what happened, within TIMEOUT_MS: the
 * page never waits longer on it. Answers are kept for CACHE_MS, so a dead Alertmanager costs one
 * timeout per interval, not one per page view.
 *
 * The alert list is read by every viewer: the answer names neither the Alertmanager's URL (an
 * internal address, maybe with credentials in it) nor an error's raw text, only one of the fixed
 * phrases of `Failure` below; the raw error goes to the server log. Each body is read up to
 * MAX_BODY_BYTES while it arrives, so a wrong or hostile endpoint cannot fill the console's memory.
 */
export const TIMEOUT_MS = 1500;
/** An Alertmanager's answer of a few thousand alerts is a few MiB; more is refused while it arrives. */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;
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

/** A failure as viewers may read it: a fixed phrase, never the URL or the error's own text. */
class Failure extends Error {}
const tooLarge = `the answer is larger than ${MAX_BODY_BYTES / 1024 / 1024} MiB, the most Fleetskew reads from an Alertmanager`;

/** The body, read up to MAX_BODY_BYTES as it arrives; past it the request is cancelled and refused. */
async function boundedText(response: Response): Promise<string> {
  if (Number(response.headers.get("content-length") ?? NaN) > MAX_BODY_BYTES) {
    await response.body?.cancel().catch(() => undefined);
    throw new Failure(tooLarge);
  }
  const reader = response.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new Failure(tooLarge);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size).toString("utf8");
}

async function getJson(url: string, signal: AbortSignal): Promise<unknown[]> {
  const response = await fetch(url, { signal, headers: { accept: "application/json" }, redirect: "error" });
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new Failure(`it answered HTTP ${response.status}`);
  }
  const text = await boundedText(response);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Failure("it did not answer JSON: is this an Alertmanager?");
  }
  if (!Array.isArray(body)) throw new Failure("it did not answer a list: is this an Alertmanager v2 API?");
  return body;
}

function describeFailure(error: unknown): string {
  if (error instanceof Failure) return error.message;
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError"))
    return `no answer within ${TIMEOUT_MS / 1000} s`;
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  if (cause?.code === "ECONNREFUSED") return "connection refused";
  if (cause?.code === "ENOTFOUND" || cause?.code === "EAI_AGAIN") return "host not found";
  // Anything else (a TLS failure, a redirect, a reset) is for the operator's log, not the viewers' page;
  // even there without the error's own message, which may carry the URL and its credentials.
  console.error(
    `fleetskew: reading the Alertmanager failed: ${error instanceof Error ? error.name : typeof error}${cause?.code ? ` (${cause.code})` : ""}`,
  );
  return "it could not be reached; the details are in the server log";
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
    return { status: "error", error: describeFailure(error) };
  }
}

let cached: { url: string; at: number; answer: Promise<AlertmanagerState> } | null = null;

/** The Alertmanager's state as of at most CACHE_MS ago; concurrent callers share one read. */
export function alertmanagerState(url: string | undefined, now = Date.now()): Promise<AlertmanagerState> {
  if (!url) return Promise.resolve({ status: "not-configured" });
  if (!cached || cached.url !== url || now - cached.at > CACHE_MS) cached = { url, at: now, answer: readAlertmanager(url) };
  return cached.answer;
}
