/*
 * ClusterVersion as a snapshot keeps it: the version history, the current version, what the cluster
 * may update to and the risks of each conditional update, bounded, since the API allows 500 updates
 * of 200 risks with messages of any length. Read defensively, like the rest of normalize.ts.
 */
import type { ClusterSnapshot, ConditionalUpdate, ConditionalUpdateRisk } from "../domain/snapshot";
import { arr, conditionsOf, obj, str, type Any } from "./fields";
import { conditionOf } from "../domain/snapshot";

/**
 * Bounds on what one ClusterVersion's risks keep. The API allows 500 updates of 200 risks each, with
 * messages of any length: an update keeps all 200 its API allows, so that no update is judged on part
 * of its list, and the ClusterVersion as a whole keeps at most MAX_RISKS_TOTAL (an update past that
 * budget is marked cut and never counted cleared).
 */
export const MAX_RISKS_PER_UPDATE = 200;
export const MAX_RISKS_TOTAL = 2000;
export const MAX_RISK_MESSAGE = 1000;
export const MAX_CONDITION_MESSAGE = 300;
export const MAX_ACCEPTED_RISKS = 200;
export const MAX_RISK_NAME = 256;
export const cut = (text: string | null, max: number) => (text && text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * The risk's Applies condition (openshift/api config/v1 ConditionalUpdateRisk.conditions, gate
 * ClusterUpdateAcceptRisks): from the risk itself, else from its entry in status.conditionalUpdateRisks.
 */
export function appliesOf(own: Any, shared: Any | undefined): Pick<ConditionalUpdateRisk, "applies" | "appliesReason" | "appliesMessage"> {
  const c = conditionOf(conditionsOf(own.conditions), "Applies") ?? conditionOf(conditionsOf(shared?.conditions), "Applies");
  if (!c) return {};
  return {
    applies: c.status === "True" || c.status === "False" ? c.status : "Unknown",
    appliesReason: cut(c.reason, MAX_RISK_NAME),
    appliesMessage: cut(c.message, MAX_CONDITION_MESSAGE),
  };
}

export function conditionalUpdatesOf(cvStatus: Any): ConditionalUpdate[] {
  const shared = new Map(
    arr(cvStatus.conditionalUpdateRisks)
      .map(obj)
      .filter((r) => str(r.name))
      .map((r) => [String(r.name), r] as const),
  );
  const riskOf = (r: Any): ConditionalUpdateRisk => {
    const name = str(r.name) ?? "unnamed risk";
    return {
      name: cut(name, MAX_RISK_NAME)!,
      message: cut(str(r.message), MAX_RISK_MESSAGE) ?? "",
      url: cut(str(r.url), MAX_RISK_MESSAGE),
      ...appliesOf(r, shared.get(name)),
    };
  };
  let budget = MAX_RISKS_TOTAL;
  return arr(cvStatus.conditionalUpdates)
    .map(obj)
    .map((u) => {
      const recommended = conditionOf(conditionsOf(u.conditions), "Recommended");
      const own = arr(u.risks).map(obj);
      // riskNames (gate ClusterUpdateAcceptRisks) may name risks kept only in status.conditionalUpdateRisks.
      const byName = arr(u.riskNames)
        .map(str)
        .filter((n): n is string => !!n && !own.some((r) => r.name === n) && shared.has(n))
        .map((n) => shared.get(n)!);
      const all = [...own, ...byName];
      const kept = all.slice(0, Math.max(0, Math.min(MAX_RISKS_PER_UPDATE, budget)));
      budget -= kept.length;
      const status = recommended?.status;
      return {
        version: str(obj(u.release).version) ?? "",
        recommended: (status === "True" || status === "False" ? status : "Unknown") as ConditionalUpdate["recommended"],
        recommendedReason: cut(recommended?.reason ?? null, MAX_RISK_NAME),
        recommendedMessage: cut(recommended?.message ?? null, MAX_RISK_MESSAGE),
        ...(kept.length < all.length ? { risksCut: true } : {}),
        risks: kept.map(riskOf),
      };
    })
    .filter((u) => u.version);
}

/** spec.desiredUpdate.acceptRisks[].name; null when not set (or not served: the gate is off). */
export function acceptRisksOf(cv: Any | null): string[] | null {
  const list = obj(obj(cv?.spec).desiredUpdate).acceptRisks;
  if (!Array.isArray(list)) return null;
  return list
    .map((r) => str(obj(r).name))
    .filter((n): n is string => !!n)
    .slice(0, MAX_ACCEPTED_RISKS)
    .map((n) => cut(n, MAX_RISK_NAME)!);
}

/** ClusterVersion: the version history, the current version and what the cluster may update to. */
export function versionFacts(cv: Any | null) {
  const cvStatus = obj(cv?.status);
  // Entries with an empty version are kept: the MCO's install version falls back past them (§16.2).
  const history = arr(cvStatus.history)
    .map(obj)
    .filter((h) => typeof h.version === "string" || h.version === undefined)
    .map((h) => ({
      version: typeof h.version === "string" ? h.version : "",
      state: str(h.state) ?? "Partial",
      startedTime: str(h.startedTime),
      completionTime: str(h.completionTime),
    }));
  const current = history.find((h) => h.state === "Completed" && h.version)?.version ?? str(obj(cvStatus.desired).version);
  const desiredUpdate = str(obj(obj(cv?.spec).desiredUpdate).version);
  const version: ClusterSnapshot["version"] = cv
    ? {
        current,
        desired: str(obj(cvStatus.desired).version),
        channel: str(obj(cv.spec).channel),
        updating: !!desiredUpdate && desiredUpdate !== current,
        history,
        conditions: conditionsOf(cvStatus.conditions),
        availableUpdates: arr(cvStatus.availableUpdates)
          .map((u) => str(obj(u).version))
          .filter((v): v is string => !!v),
        conditionalUpdates: conditionalUpdatesOf(cvStatus),
        multiArch: str(obj(cvStatus.desired).architecture) === "Multi",
        acceptRisks: acceptRisksOf(cv),
      }
    : null;
  return { history, current, version };
}
