import { appConfig } from "../config/current";
import type { Reach } from "../domain/grants";
import { attentionFigures } from "../store/processes";
import { listClustersNeedingAction, listRolloutsNeedingAction } from "../store/alerts";
import { clusterNamesInReach } from "../store/fleet";
import { alertmanagerState } from "./alertmanager";
import { evaluateFleetAlerts, type FleetAlert } from "./conditions";
import type { AlertmanagerState, FleetAlertList } from "./contract";

/**
 * The alerts Fleetskew's rules would raise now for a reader, from the store (three small queries):
 * the alerts of clusters in reach, of rollouts that include a cluster in reach, and the one alert
 * about Fleetskew itself (collectors behind), which every reader keeps because it says that what
 * they read may be old, and names no cluster.
 */
export async function currentFleetAlerts(reach: Reach): Promise<FleetAlert[]> {
  const [clusters, rollouts, attention] = await Promise.all([
    listClustersNeedingAction(reach),
    listRolloutsNeedingAction(reach),
    attentionFigures(),
  ]);
  return evaluateFleetAlerts({ clusters, rollouts, sweepLagSeconds: attention.sweepLagSeconds });
}

/**
 * What a reader may see of the Alertmanager's state: for the whole fleet, all of it; otherwise the
 * alerts whose `cluster` label names a cluster in reach and the silences with an exact `cluster`
 * matcher naming one. Everything else (other clusters', rollouts', the platform's own) may be
 * about any part of the fleet, so it is left out rather than guessed at.
 */
export async function alertmanagerInReach(state: AlertmanagerState, reach: Reach): Promise<AlertmanagerState> {
  if (state.status !== "ok" || reach.kind === "fleet") return state;
  const clusterOfSilence = (s: (typeof state.silences)[number]) =>
    s.matchers.find((m) => m.name === "cluster" && m.isEqual && !m.isRegex)?.value;
  const named = [
    ...state.alerts.map((a) => a.labels.cluster).filter((n): n is string => !!n),
    ...state.silences.map(clusterOfSilence).filter((n): n is string => !!n),
  ];
  const inReach = await clusterNamesInReach(named, reach);
  return {
    ...state,
    alerts: state.alerts.filter((a) => a.labels.cluster !== undefined && inReach.has(a.labels.cluster)),
    silences: state.silences.filter((s) => inReach.has(clusterOfSilence(s) ?? "")),
  };
}

/** The alert list within the reader's reach: Fleetskew's own evaluation and, read at the same time, the configured Alertmanager's state. */
export async function fleetAlertList(reach: Reach): Promise<FleetAlertList> {
  const [alerts, alertmanager] = await Promise.all([currentFleetAlerts(reach), alertmanagerState(appConfig().alertmanagerUrl)]);
  return { generatedAt: new Date().toISOString(), alerts, alertmanager: await alertmanagerInReach(alertmanager, reach) };
}
