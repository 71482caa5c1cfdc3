/**
 * The alert list's endpoint: the alerts Fleetskew's rules would raise, evaluated from the store, and
 * beside them what the configured Alertmanager says (its v2 API), or why it could not be read.
 */
import { z } from "zod";
import { endpoint } from "../http/endpoint";

const Labels = z.record(z.string(), z.string());

export const FleetAlertAnswer = z
  .object({
    alert: z.string().meta({ description: "The alert's name, as in deploy/monitoring/" }),
    severity: z.enum(["critical", "warning", "info"]),
    cluster: z.string().nullable().meta({ description: "The cluster it is about; null for the fleet or a rollout" }),
    labels: Labels,
    summary: z.string(),
    description: z.string(),
    runbookUrl: z.string(),
  })
  .meta({ id: "FleetAlert" });

export const AlertmanagerAlertAnswer = z.object({
  fingerprint: z.string(),
  labels: Labels,
  annotations: Labels,
  startsAt: z.string(),
  /** active | suppressed | unprocessed */
  state: z.string(),
  silencedBy: z.array(z.string()),
});

export const SilenceAnswer = z.object({
  id: z.string(),
  matchers: z.array(z.object({ name: z.string(), value: z.string(), isRegex: z.boolean(), isEqual: z.boolean() })),
  createdBy: z.string(),
  comment: z.string(),
  startsAt: z.string(),
  endsAt: z.string(),
  state: z.string(),
});

export const AlertmanagerAnswer = z
  .discriminatedUnion("status", [
    z.object({ status: z.literal("not-configured") }),
    z.object({
      status: z.literal("ok"),
      alerts: z.array(AlertmanagerAlertAnswer),
      silences: z.array(SilenceAnswer),
      /** More alerts or silences than shown. */
      truncated: z.boolean(),
    }),
    // Neither the Alertmanager's URL nor an error's own text: a fixed phrase (server/alerts/alertmanager.ts).
    z.object({ status: z.literal("error"), error: z.string() }),
  ])
  .meta({ id: "AlertmanagerState" });

export const AlertListAnswer = z
  .object({
    generatedAt: z.string(),
    alerts: z.array(FleetAlertAnswer),
    alertmanager: AlertmanagerAnswer,
  })
  .meta({ id: "AlertList" });

export type FleetAlertList = z.infer<typeof AlertListAnswer>;
export type AlertmanagerState = z.infer<typeof AlertmanagerAnswer>;

export const alertEndpoints = {
  list: endpoint({
    method: "GET",
    path: "/api/v1/alerts",
    summary: "The alerts Fleetskew's rules would raise now, and the configured Alertmanager's active alerts and silences",
    description:
      "Evaluated from the store with the conditions of deploy/monitoring/ (no Prometheus needed; the rules' `for:` waits are Prometheus's). With FLEETSKEW_ALERTMANAGER_URL set, its Fleetskew and OpenShift upgrade alerts and its silences are read with a short timeout; an Alertmanager that cannot be read is reported as such (status error) and never delays the answer by more than that timeout.",
    access: "any",
    answer: AlertListAnswer,
  }),
};
