import { describe, expect, it } from "vitest";
import type { FiringAlert } from "../snapshot";
import { healthyCluster } from "../testing/snapshots";
import { alertGroupOf } from "./alerts";
import { run } from "./testing";

/**
 * Each check follows one group of openshift/oc pkg/cli/admin/upgrade/recommend/alerts.go
 * `(*options).alerts` (docs/openshift.md §27.2).
 */
const alert = (name: string, more: Partial<FiringAlert> = {}): FiringAlert => ({
  name,
  severity: "warning",
  namespace: null,
  podDisruptionBudget: null,
  updatePrecheck: false,
  summary: null,
  description: null,
  ...more,
});
const firing = (...alerts: FiringAlert[]) => healthyCluster({ alerts: { firing: alerts, relevant: alerts.length } });
const TARGET = "4.19.11";

describe("alertGroupOf: the order of oc's if-chain in (*options).alerts", () => {
  it.each([
    ["a critical alert is critical, whatever its name", alert("KubeNodeNotReady", { severity: "critical" }), "critical"],
    ["PodDisruptionBudgetAtLimit", alert("PodDisruptionBudgetAtLimit"), "pdb"],
    ["KubeContainerWaiting", alert("KubeContainerWaiting"), "image-pull"],
    ["the four node alerts", alert("KubeNodeUnreachable"), "node"],
    ["openShiftUpdatePrecheck=true", alert("EtcdBackupOld", { updatePrecheck: true }), "update-precheck"],
    ["a named group wins over the precheck label", alert("KubeContainerWaiting", { updatePrecheck: true }), "image-pull"],
    ["VMCannotBeEvicted", alert("VMCannotBeEvicted"), "virt"],
    ["Watchdog is not looked at", alert("Watchdog", { severity: "none" }), null],
    ["AlertmanagerReceiversNotConfigured is not looked at", alert("AlertmanagerReceiversNotConfigured"), null],
    ["a warning PodDisruptionBudgetLimit is not looked at", alert("PodDisruptionBudgetLimit"), null],
  ])("%s", (_rule, a, group) => {
    expect(alertGroupOf(a)).toBe(group);
  });
  it("pending alerts are skipped", () => {
    expect(alertGroupOf({ ...alert("KubeNodeNotReady"), state: "pending" })).toBeNull();
  });
});

describe("alert checks", () => {
  it("pass with oc's words when nothing of a group fires (only alerts oc ignores)", () => {
    const s = firing(alert("Watchdog", { severity: "none" }), alert("AlertmanagerReceiversNotConfigured"));
    expect(run(s, TARGET, "alerts-critical")).toMatchObject({ status: "pass", detail: "No critical alerts firing." });
    expect(run(s, TARGET, "alerts-pdb")).toMatchObject({ status: "pass", detail: "No PodDisruptionBudget alerts firing." });
    expect(run(s, TARGET, "alerts-image-pull")).toMatchObject({ status: "pass", detail: "No Pod container image pull alerts firing." });
    expect(run(s, TARGET, "alerts-node")).toMatchObject({ status: "pass", detail: "No Node alerts firing." });
    expect(run(s, TARGET, "alerts-update-precheck")).toMatchObject({
      status: "pass",
      detail: "No alerts with the openShiftUpdatePrecheck label true are firing.",
    });
    expect(run(s, TARGET, "alerts-virt").status).toBe("pass");
  });

  it("CriticalAlerts: a critical alert warns (oc: a concern to accept, not a blocker), naming it and its summary", () => {
    const s = firing(
      alert("KubeAPIErrorBudgetBurn", {
        severity: "critical",
        namespace: "openshift-kube-apiserver",
        summary: "The API server is burning too much error budget.",
      }),
    );
    const c = run(s, TARGET, "alerts-critical");
    expect(c.status).toBe("warn");
    expect(c.detail).toContain("suggesting significant cluster issues");
    expect(c.detail).toContain(
      "critical alert KubeAPIErrorBudgetBurn (namespace openshift-kube-apiserver): The API server is burning too much error budget",
    );
    expect(c.evidence[0]).toMatchObject({ kind: "Alert", name: "KubeAPIErrorBudgetBurn", namespace: "openshift-kube-apiserver" });
    // A critical alert of a node name counts only as critical, as in oc.
    expect(run(firing(alert("KubeNodeNotReady", { severity: "critical" })), TARGET, "alerts-node").status).toBe("pass");
  });

  it("PodDisruptionBudgetAlerts: PodDisruptionBudgetAtLimit names the namespace and PDB; a critical PodDisruptionBudgetLimit is counted once, as critical", () => {
    const atLimit = alert("PodDisruptionBudgetAtLimit", { namespace: "payments", podDisruptionBudget: "api-pdb" });
    const c = run(firing(atLimit), TARGET, "alerts-pdb");
    expect(c.status).toBe("warn");
    expect(c.detail).toContain("might slow node drains");
    expect(c.detail).toContain("PodDisruptionBudgetAtLimit (namespace payments, PodDisruptionBudget api-pdb)");
    const limit = alert("PodDisruptionBudgetLimit", { severity: "critical", namespace: "db", podDisruptionBudget: "pg" });
    const pdb = run(firing(limit), TARGET, "alerts-pdb");
    expect(pdb.status).toBe("pass");
    expect(pdb.detail).toContain("is one of the critical alerts, shown there");
    expect(run(firing(limit), TARGET, "alerts-critical").status).toBe("warn");
  });

  it("PodImagePullAlerts, NodeAlerts, UpdatePrecheckAlerts and VirtAlerts warn on their alerts", () => {
    expect(run(firing(alert("KubeContainerWaiting", { namespace: "shop" })), TARGET, "alerts-image-pull").status).toBe("warn");
    expect(run(firing(alert("KubeletHealthState")), TARGET, "alerts-node").status).toBe("warn");
    const pre = run(firing(alert("EtcdBackupOld", { updatePrecheck: true })), TARGET, "alerts-update-precheck");
    expect(pre.status).toBe("warn");
    expect(pre.detail).toContain("suggesting issues worth investigating before updating the cluster");
    expect(run(firing(alert("VirtHandlerDaemonSetRolloutFailing")), TARGET, "alerts-virt").status).toBe("warn");
  });

  it("says how many more fired beyond what is kept", () => {
    const s = healthyCluster({ alerts: { firing: [alert("KubeNodeNotReady")], relevant: 45 } });
    expect(run(s, TARGET, "alerts-node").detail).toContain("44 more alerts of the groups checked were firing beyond what Fleetskew keeps");
  });

  it("unread alerts are unknown, never a pass: with the read problem, or for snapshots from before alerts were read", () => {
    const refused = healthyCluster({
      alerts: null,
      problems: [{ part: "Alerts", kind: "error", message: 'services "https:thanos-querier:web" is forbidden' }],
    });
    const c = run(refused, TARGET, "alerts-critical");
    expect(c.status).toBe("unknown");
    expect(c.detail).toContain("is forbidden");
    expect(c.remediation).toContain("docs/rbac.md");
    const old = healthyCluster();
    delete old.alerts;
    expect(run(old, TARGET, "alerts-pdb").status).toBe("unknown");
    expect(run(old, TARGET, "alerts-pdb").detail).toContain("not read in this snapshot");
  });
});
