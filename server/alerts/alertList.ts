import { appConfig } from "../config/current";
import { attentionFigures } from "../store/processes";
import { listClustersNeedingAction, listRolloutsNeedingAction } from "../store/alerts";
import { alertmanagerState } from "./alertmanager";
import { evaluateFleetAlerts, type FleetAlert } from "./conditions";
import type { FleetAlertList } from "./contract";

/** The alerts Fleetskew's rules would raise now, from the store (three small queries). */
export async function currentFleetAlerts(): Promise<FleetAlert[]> {
  const [clusters, rollouts, attention] = await Promise.all([listClustersNeedingAction(), listRolloutsNeedingAction(), attentionFigures()]);
  return evaluateFleetAlerts({ clusters, rollouts, sweepLagSeconds: attention.sweepLagSeconds });
}

/** The alert list: Fleetskew's own evaluation and, read at the same time, the configured Alertmanager's state. */
export async function fleetAlertList(): Promise<FleetAlertList> {
  const [alerts, alertmanager] = await Promise.all([currentFleetAlerts(), alertmanagerState(appConfig().alertmanagerUrl)]);
  return { generatedAt: new Date().toISOString(), alerts, alertmanager };
}
