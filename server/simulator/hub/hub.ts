import type { KindInfo } from "../kinds";
import type { KubeObject } from "../objectStore";
import { observeCluster, refreshed } from "./clusterInfo";
import { parseGoDuration, setCondition, type Condition } from "./conditions";
import { HubCore, type HubMember, type HubMemberInput } from "./core";
import { newToken } from "./identities";
import { HUB_KINDS } from "./kinds";
import {
  availableCondition,
  isOpenShift,
  managedClusterSet,
  managedServiceAccountSecret,
  memberObjects,
  PROXY_ADDON,
  proxyAddOn,
} from "./objects";
import { effectiveBindings, hasBindings, managedServiceAccountSubjects, type ClusterPermissionSpec } from "./permissions";

export { HUB_ADMIN_USER, HUB_PROXY_USER, HUB_READER_USER, READER_RULES } from "./identities";
export type { HubIdentity, HubMember, HubMemberInput, HubOptions, HubTokens } from "./core";

/**
 * A simulated ACM hub: the controllers that answer a ClusterPermission or ManagedServiceAccount
 * after a delay, and the controls tests and scenarios use — clusters joining and leaving, leases
 * expiring, add-ons failing, the agent's ManagedClusterInfo refresh.
 */
export class SimHub extends HubCore {
  // ---- controllers -------------------------------------------------------------------------

  /** Hub API writes land here: a ClusterPermission or ManagedServiceAccount is answered after its delay. */
  afterWrite(info: KindInfo, verb: string, obj: KubeObject): void {
    const ns = obj.metadata.namespace!;
    const name = obj.metadata.name!;
    if (info === HUB_KINDS.clusterPermission && verb !== "status") {
      this.later(this.permissionDelayMs, () => this.reconcilePermission(ns, name));
    }
    if (info === HUB_KINDS.managedServiceAccount) {
      if (verb === "delete") this.revokeServiceAccount(ns, name);
      else if (verb === "create") this.later(this.serviceAccountDelayMs, () => this.reconcileServiceAccount(ns, name));
    }
  }

  private reconcilePermission(ns: string, name: string): void {
    const cp = this.find(HUB_KINDS.clusterPermission, ns, name);
    if (!cp) {
      this.applied.get(ns)?.delete(name);
      return;
    }
    const spec = (cp.spec ?? {}) as ClusterPermissionSpec;
    const status = (cp.status ?? {}) as { conditions?: Condition[] };
    const now = this.now();
    const fail = (type: string, reason: string, message: string) =>
      this.setStatus(HUB_KINDS.clusterPermission, cp, {
        ...status,
        conditions: setCondition(status.conditions, { type, status: "False", reason, message }, now),
      });
    if (!hasBindings(spec)) return fail("Validation", "FailedValidationNoBindingsDefined", "no bindings defined");
    const member = this.members.get(ns);
    if (!member) return fail("Validation", "FailedValidationNotInManagedClusterNamespace", "namespace value is not a managed cluster");
    // The controller stops at a ManagedServiceAccount subject that does not exist yet; one's creation retries it.
    if (managedServiceAccountSubjects(spec).some((msa) => !this.find(HUB_KINDS.managedServiceAccount, ns, msa))) return;
    const workName = `${name}-${cp.metadata.uid!.slice(0, 5)}`;
    const hint = `\nRun the following command to check the ManifestWork status:\nkubectl -n ${ns} get ManifestWork ${workName} -o yaml`;
    if (member.leaseExpired || member.joining || !member.backing) {
      return fail("AppliedRBACManifestWork", "ApplyRBACManifestWorkNotComplete", `Apply RBAC manifestWork not complete${hint}`);
    }
    let perCluster = this.applied.get(ns);
    if (!perCluster) this.applied.set(ns, (perCluster = new Map()));
    perCluster.set(name, effectiveBindings(name, spec));
    this.setStatus(HUB_KINDS.clusterPermission, cp, {
      ...status,
      conditions: setCondition(
        status.conditions,
        {
          type: "AppliedRBACManifestWork",
          status: "True",
          reason: "AppliedManifestWorkComplete",
          message: `Apply manifest work complete${hint}`,
        },
        now,
      ),
    });
  }

  private reconcileServiceAccount(ns: string, name: string): void {
    const msa = this.find(HUB_KINDS.managedServiceAccount, ns, name);
    const member = this.members.get(ns);
    if (!msa || !member) return;
    if (member.leaseExpired || member.joining || !member.backing) return; // the agent reports once it is back (renewLease)
    // A new token; one issued before stays valid until it expires, as a TokenRequest token does.
    const token = newToken();
    const validity = parseGoDuration((msa.spec as { rotation?: { validity?: string } })?.rotation?.validity ?? "8640h0m0s");
    this.msaTokens.set(token, { cluster: ns, name, expires: this.env.now().getTime() + validity });
    const secret = managedServiceAccountSecret(ns, name, token, this.managedCa);
    const existing = this.find(HUB_KINDS.secret, ns, name);
    if (existing) this.store.replace(HUB_KINDS.secret, ns, name, { ...secret, metadata: { ...existing.metadata, ...secret.metadata } });
    else this.store.create(HUB_KINDS.secret, ns, secret);
    const now = this.now();
    const status = (msa.status ?? {}) as { conditions?: Condition[] };
    let conditions = setCondition(status.conditions, { type: "SecretCreated", status: "True", reason: "SecretCreated", message: "" }, now);
    conditions = setCondition(conditions, { type: "TokenReported", status: "True", reason: "TokenReported", message: "" }, now);
    this.setStatus(HUB_KINDS.managedServiceAccount, this.find(HUB_KINDS.managedServiceAccount, ns, name)!, {
      ...status,
      conditions,
      expirationTimestamp: new Date(this.env.now().getTime() + validity).toISOString().replace(/\.\d{3}Z$/, "Z"),
      tokenSecretRef: { name, lastRefreshTimestamp: now },
    });
    // A ClusterPermission waiting for this subject can now be applied.
    for (const cp of this.store.list(HUB_KINDS.clusterPermission, ns)) {
      if (managedServiceAccountSubjects((cp.spec ?? {}) as ClusterPermissionSpec).includes(name))
        this.later(this.permissionDelayMs, () => this.reconcilePermission(ns, cp.metadata.name!));
    }
  }

  private revokeServiceAccount(ns: string, name: string): void {
    for (const [t, owner] of this.msaTokens) if (owner.cluster === ns && owner.name === name) this.msaTokens.delete(t);
    if (this.find(HUB_KINDS.secret, ns, name)) this.store.delete(HUB_KINDS.secret, ns, name);
  }

  // ---- controls for tests and scenarios ----------------------------------------------------

  /**
   * The managed-serviceaccount agent rotates a token (it does so after 80% of its lifetime, MSA
   * token.go exceedThreshold): a new one in the Secret and a new lastRefreshTimestamp; with
   * `revokeOld` the tokens issued before stop working at once, as when the account is recreated.
   */
  rotateServiceAccountToken(cluster: string, name: string, { revokeOld = false } = {}): void {
    if (!this.find(HUB_KINDS.managedServiceAccount, cluster, name)) throw new Error(`no ManagedServiceAccount ${cluster}/${name}`);
    if (revokeOld) this.revokeServiceAccount(cluster, name);
    this.reconcileServiceAccount(cluster, name);
  }

  /** A cluster joins the hub while it is watched: its namespace, ManagedCluster, info and add-ons appear (ADDED). */
  addCluster(input: HubMemberInput, options: { joinAfterMs?: number } = {}): HubMember {
    const member = this.admit(input);
    const set = input.profile.clusterSet;
    if (!this.find(HUB_KINDS.managedClusterSet, undefined, set))
      this.store.create(HUB_KINDS.managedClusterSet, undefined, managedClusterSet(set, "", this.now()));
    const objects = memberObjects({ ...member.profile, joined: this.now() }, () => this.env.uid(), this.managedCa);
    const create = ([info, obj]: (typeof objects)[number]) => {
      const { metadata, ...rest } = obj;
      const { uid: _uid, creationTimestamp: _at, ...meta } = metadata;
      this.store.create(info, metadata.namespace, { ...rest, metadata: meta });
    };
    if (!options.joinAfterMs) {
      objects.forEach(create);
      return member;
    }
    // Imported, not joined yet: accepted by the hub, with no agent, claims, info or add-ons until it joins.
    member.joining = true;
    const [ns, mc, ...rest] = objects;
    create(ns!);
    const full = mc![1];
    const conditions = (full.status as { conditions: Condition[] }).conditions.filter((c) => c.type === "HubAcceptedManagedCluster");
    const labels = Object.fromEntries(
      Object.entries(full.metadata.labels ?? {}).filter(
        ([k]) => !["cloud", "vendor", "clusterID"].includes(k) && !k.startsWith("openshiftVersion"),
      ),
    );
    create([mc![0], { ...full, metadata: { ...full.metadata, labels }, status: { conditions } }]);
    this.later(options.joinAfterMs, () => {
      if (this.members.get(member.profile.name) !== member) return; // deleted meanwhile
      member.joining = false;
      const current = this.store.get(HUB_KINDS.managedCluster, undefined, member.profile.name);
      const joined = this.store.replace(HUB_KINDS.managedCluster, undefined, member.profile.name, {
        ...current,
        metadata: { ...current.metadata, labels: full.metadata.labels },
      }).object;
      this.setStatus(HUB_KINDS.managedCluster, joined, full.status as Record<string, unknown>);
      rest.forEach(create);
    });
    return member;
  }

  /**
   * A cluster is detached: the ManagedCluster is marked for deletion (deletionTimestamp, condition
   * Deleting), everything in its namespace goes, then the ManagedCluster itself (DELETED).
   */
  deleteCluster(name: string): void {
    const member = this.members.get(name);
    if (!member) throw new Error(`no managed cluster named ${name}`);
    const mc = this.store.get(HUB_KINDS.managedCluster, undefined, name);
    const now = this.now();
    const status = mc.status as { conditions?: Condition[] };
    const marked = this.store.replace(HUB_KINDS.managedCluster, undefined, name, {
      ...mc,
      metadata: { ...mc.metadata, deletionTimestamp: now },
    }).object;
    this.setStatus(HUB_KINDS.managedCluster, marked, {
      ...status,
      conditions: setCondition(
        status.conditions,
        { type: "Deleting", status: "True", reason: "NoResource", message: "No cleaned resource in cluster ns." },
        now,
      ),
    });
    this.members.delete(name);
    this.applied.delete(name);
    for (const [t, owner] of this.msaTokens) if (owner.cluster === name) this.msaTokens.delete(t);
    this.offlineListeners.forEach((l) => l(name));
    for (const info of [
      HUB_KINDS.clusterPermission,
      HUB_KINDS.managedServiceAccount,
      HUB_KINDS.secret,
      HUB_KINDS.managedClusterAddOn,
      HUB_KINDS.managedClusterInfo,
      HUB_KINDS.managedClusterSetBinding,
    ])
      for (const obj of this.store.list(info, name)) this.store.delete(info, name, obj.metadata.name!);
    this.store.delete(HUB_KINDS.namespace, undefined, name);
    this.store.delete(HUB_KINDS.managedCluster, undefined, name);
  }

  /** The cluster's agent stops renewing its lease: Available turns Unknown and its tunnel closes. */
  expireLease(name: string): void {
    this.setLease(name, true);
  }

  /** The agent is back: Available turns True, and what waited for it (RBAC, tokens) is applied. */
  renewLease(name: string): void {
    this.setLease(name, false);
    for (const cp of this.store.list(HUB_KINDS.clusterPermission, name))
      this.later(this.permissionDelayMs, () => this.reconcilePermission(name, cp.metadata.name!));
    for (const msa of this.store.list(HUB_KINDS.managedServiceAccount, name))
      if (!(msa.status as { tokenSecretRef?: unknown } | undefined)?.tokenSecretRef)
        this.later(this.serviceAccountDelayMs, () => this.reconcileServiceAccount(name, msa.metadata.name!));
  }

  private setLease(name: string, expired: boolean): void {
    const member = this.members.get(name);
    if (!member) throw new Error(`no managed cluster named ${name}`);
    member.leaseExpired = expired;
    const mc = this.store.get(HUB_KINDS.managedCluster, undefined, name);
    const status = mc.status as { conditions?: Condition[] };
    const next = availableCondition(expired, this.now());
    this.setStatus(HUB_KINDS.managedCluster, mc, { ...status, conditions: setCondition(status.conditions, next, next.lastTransitionTime) });
    // With the agent gone, the hub's add-on health check copies the cluster's Unknown onto every add-on
    // (OCM pkg/registration/hub/addon/healthcheck_controller.go); once it is back, the agent reports them again.
    for (const addOn of this.store.list(HUB_KINDS.managedClusterAddOn, name)) {
      const addOnStatus = (addOn.status ?? {}) as { conditions?: Condition[] };
      const available = expired
        ? { ...next, type: "Available" }
        : addOn.metadata.name === PROXY_ADDON
          ? (proxyAddOn(member.profile, "").status as { conditions: Condition[] }).conditions[0]!
          : { type: "Available", status: "True", reason: "ProbeAvailable", message: `${addOn.metadata.name} add-on is available.` };
      this.setStatus(HUB_KINDS.managedClusterAddOn, addOn, {
        ...addOnStatus,
        conditions: setCondition(addOnStatus.conditions, available, next.lastTransitionTime),
      });
    }
    if (expired) this.offlineListeners.forEach((l) => l(name));
  }

  /** The `cluster-proxy` add-on's agent becomes (un)available on the cluster. */
  setProxyAddOnAvailable(name: string, available: boolean): void {
    const member = this.members.get(name);
    if (!member) throw new Error(`no managed cluster named ${name}`);
    member.profile = { ...member.profile, proxyAddOnAvailable: available };
    const addOn = this.store.get(HUB_KINDS.managedClusterAddOn, name, "cluster-proxy");
    this.setStatus(HUB_KINDS.managedClusterAddOn, addOn, (proxyAddOn(member.profile, "").status ?? {}) as Record<string, unknown>);
    if (!available) this.offlineListeners.forEach((l) => l(name));
  }

  /**
   * The ACM agent's periodic refresh (every 5 minutes on a real cluster): ManagedClusterInfo's
   * version, upgrade state and nodes, and the version claims and labels, from the simulated cluster.
   * Clusters never read or written have not changed and are skipped.
   */
  refreshClusterInfo(name?: string): void {
    for (const [cluster, member] of name ? [[name, this.members.get(name)] as const] : this.members.entries()) {
      if (!member?.backing?.materialized || member.leaseExpired || !isOpenShift(member.profile)) continue;
      const mci = this.find(HUB_KINDS.managedClusterInfo, cluster, cluster);
      const mc = this.find(HUB_KINDS.managedCluster, undefined, cluster);
      if (!mci || !mc) continue;
      const next = refreshed(mci, mc, member.profile, observeCluster(member.backing));
      member.profile = next.profile;
      this.setStatus(HUB_KINDS.managedClusterInfo, mci, next.mciStatus);
      this.store.replace(HUB_KINDS.managedCluster, undefined, cluster, { ...mc, metadata: { ...mc.metadata, labels: next.labels } });
      this.setStatus(HUB_KINDS.managedCluster, this.store.get(HUB_KINDS.managedCluster, undefined, cluster), next.mcStatus);
    }
  }

  /** Runs refreshClusterInfo every `intervalMs` until close(). */
  refreshClusterInfoEvery(intervalMs: number): void {
    const timer = setInterval(() => this.refreshClusterInfo(), intervalMs);
    timer.unref();
    this.intervals.push(timer);
  }
}
