/**
 * The rollout planning form, as the browser sends it in a GET query string (so it works before the
 * page's scripts run, and a plan is a link), read into a rollout request. Empty fields are absent.
 */
import { RolloutRequestSchema, type RolloutRequest } from "../domain/rollouts/request";
import { plainIssue } from "../http/issues";

export type PlanForm = Record<string, string>;
export type FormReading = { request: RolloutRequest | null; error: string | null; input: unknown };

const list = (text: string | undefined) =>
  (text ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
/** A checkbox as a GET form sends it ("on"), or as a link may write it ("1"). */
const checked = (value: string | undefined) => value === "on" || value === "1";
/** "10" is a count, "25%" a percentage: as the API takes them. */
const amount = (text: string | undefined) => (text === undefined ? undefined : /^\d+$/.test(text) ? Number(text) : text);

export function requestFromForm(form: PlanForm): FormReading {
  const f = (name: string) => (form[name]?.trim() ? form[name]!.trim() : undefined);
  const canaries = f("canaries");
  const windowGiven = f("schedule") ?? f("windowDuration");
  const names = list(f("clusters"));
  const input = {
    kind: f("kind") ?? "upgrade",
    ...(f("kind") === "bundle"
      ? { bundle: f("bundle"), startUpgrade: checked(form.startUpgrade), unpinAfter: checked(form.unpinAfter) }
      : f("kind") === "acknowledgement"
        ? {}
        : { target: f("target"), acceptRisks: list(f("acceptRisks")) }),
    ...(f("kind") === "acknowledgement"
      ? {
          acknowledgement: {
            mode: f("ackMode"),
            ocpVersion: f("ocpVersion"),
            rhcosVersion: f("rhcosVersion"),
            evidence: f("evidence") ?? "",
          },
        }
      : {}),
    selection: names.length ? { clusters: names } : { query: f("query") ?? "" },
    strategy: {
      ...(canaries ? { canaries: /^\d+$/.test(canaries) ? Number(canaries) : list(canaries) } : {}),
      ...(f("maxConcurrency") ? { maxConcurrency: amount(f("maxConcurrency")) } : {}),
      ...(f("groupBy") ? { groupBy: f("groupBy") } : {}),
      ...(f("minSuccessTime") ? { minSuccessTime: f("minSuccessTime") } : {}),
      ...(f("progressDeadline") ? { progressDeadline: f("progressDeadline") } : {}),
      ...(f("maxFailures") ? { maxFailures: amount(f("maxFailures")) } : {}),
      ...(f("mandatoryGroups") ? { mandatoryGroups: list(f("mandatoryGroups")) } : {}),
      ...(f("onFailure") ? { onFailure: f("onFailure") } : {}),
      ...(checked(form.releaseEachWave) ? { releaseEachWave: true } : {}),
    },
    ...(windowGiven
      ? { windows: { default: { schedule: f("schedule") ?? "", duration: f("windowDuration") ?? "", timeZone: f("timeZone") ?? "UTC" } } }
      : {}),
    dryRun: true,
  };
  const parsed = RolloutRequestSchema.safeParse(input);
  if (parsed.success) return { request: parsed.data, error: null, input };
  return { request: null, error: plainIssue(parsed.error.issues[0]!).error, input };
}
