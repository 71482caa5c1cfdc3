import { describe, expect, it } from "vitest";
import type { Preview } from "./engine";
import type { Action } from "./policy";
import { actionInWords, explained, NO_PREDICTION, summarizeFleet, verdictOf } from "./verdict";

const preview = (actions: Action[], drain: boolean, unreconcilable: string[] = []): Preview => ({
  ...NO_PREDICTION,
  actions,
  drain,
  reboot: actions.some((a) => a.type === "Reboot"),
  unreconcilable,
});
const reload = (serviceName: string): Action => ({ type: "Reload", reload: { serviceName } });
const restart = (serviceName: string): Action => ({ type: "Restart", restart: { serviceName } });

describe("the verdict a person reads", () => {
  const cases: [string, Preview, string][] = [
    [
      "§4 execution table: Special is `systemctl reload crio`; an unsafe registries.conf change drains first (§6)",
      preview([{ type: "Special" }], true),
      "Drain + reload crio.service",
    ],
    [
      "§4 execution table, §6: a safe registries.conf change reloads crio without a drain",
      preview([{ type: "Special" }], false),
      "Reload crio.service, no drain",
    ],
    [
      "§4 step 10: Special and a policy's crio reload are one reload in words",
      preview([{ type: "Special" }, reload("crio.service")], false),
      "Reload crio.service, no drain",
    ],
    ["§4 execution table: a Restart without drain", preview([restart("chronyd.service")], false), "Restart chronyd.service, no drain"],
    [
      "§4 drain decision: Drain with a restart",
      preview([{ type: "Drain" }, restart("kubelet.service")], true),
      "Drain + restart kubelet.service",
    ],
    [
      "§4 execution table: DaemonReload then Restart",
      preview([{ type: "DaemonReload" }, restart("kubelet.service")], false),
      "Daemon-reload, restart kubelet.service, no drain",
    ],
    ["§4 step 8: Reboot", preview([{ type: "Reboot" }], true), "Reboot"],
    ["§4 step 4: None", preview([{ type: "None" }], false), "No disruption"],
    ["§2: a refused change", preview([], false, ["spec.fips changed"]), "Refused"],
  ];
  it.each(cases)("%s", (_rule, p, verdict) => expect(verdictOf(p)).toBe(verdict));
});

describe("each action in words, as the verdict words it", () => {
  const cases: [string, Action, string][] = [
    ["§4 execution table: Special is `systemctl reload crio`", { type: "Special" }, "Reload crio.service"],
    ["§4 execution table: a Reload names its service", reload("crio.service"), "Reload crio.service"],
    ["§4 execution table: a Restart names its service", restart("chronyd.service"), "Restart chronyd.service"],
    ["§4 execution table: DaemonReload", { type: "DaemonReload" }, "Daemon-reload"],
    ["§4 step 8: Reboot", { type: "Reboot" }, "Reboot"],
    ["§4 drain decision: Drain", { type: "Drain" }, "Drain"],
    ["§4 step 4: None", { type: "None" }, "None"],
  ];
  it.each(cases)("%s", (_rule, action, words) => expect(actionInWords(action)).toBe(words));

  it("explained() adds the words beside the pool's actions and each change's, in order, and keeps the rest", () => {
    const p: Preview = {
      ...preview([{ type: "DaemonReload" }, { type: "Special" }], false),
      changes: [
        { kind: "file", name: "/etc/containers/registries.conf", change: "changed", decidedBy: "default", actions: [{ type: "Special" }] },
        { kind: "unit", name: "x.service", change: "added", decidedBy: "default", actions: [{ type: "DaemonReload" }] },
        { kind: "file", name: "/var/lib/kubelet/config.json", change: "changed", decidedBy: "default", actions: [] },
      ],
    };
    const e = explained(p);
    expect(e).toMatchObject({ actions: p.actions, actionWords: ["Daemon-reload", "Reload crio.service"] });
    expect(e.changes.map((c) => c.actionWords)).toEqual([["Reload crio.service"], ["Daemon-reload"], []]);
    expect(e.changes.map(({ actionWords: _, ...c }) => c)).toEqual(p.changes);
  });
});

describe("the fleet summary", () => {
  const pool = (verdict: string, nodes: number) => ({ verdict, nodes });
  const cases: [string, Parameters<typeof summarizeFleet>[0], Record<string, unknown>, string][] = [
    [
      "§2: pools whose change is refused are counted apart, not as 'no reboot'",
      [
        { cluster: "a", source: "live", pools: [pool("Reboot", 5), pool("Refused", 3)] },
        { cluster: "b", source: "live", pools: [pool("Refused", 2)] },
        { cluster: "c", source: "live", pools: [pool("Reload crio.service, no drain", 4), pool("No disruption", 1)] },
      ],
      { rebootNodes: 5, rebootClusters: 1, otherNodes: 4, otherClusters: 1, refusedNodes: 5, refusedClusters: 2 },
      "reboots 5 nodes in 1 cluster (a), no reboot in 1 cluster (4 nodes: c); refused in 2 clusters (a, b) (5 nodes left as they are)",
    ],
    [
      "a pool with no verdict is neither a reboot nor 'no reboot'",
      [
        { cluster: "s", source: "stored", pools: [pool("Unknown", 3)] },
        { cluster: "gone", error: "cannot read gone" },
      ],
      { otherClusters: 0, otherNodes: 0, unknownPools: 1, stored: 1, failed: 1 },
      "reboots 0 nodes in 0 clusters, no reboot in 0 clusters (0 nodes); 1 pool could not be judged; 1 unreachable cluster previewed from the configuration of its last sweep; 1 cluster could not be previewed (gone)",
    ],
    [
      "the verdict names the clusters that reboot, the first few and how many more, and those it leaves out",
      [
        ...["p1", "p2", "p3", "p4", "p5"].map((cluster) => ({
          cluster,
          source: "live" as const,
          pools: [pool("Restart chronyd.service, no drain", 3)],
        })),
        { cluster: "reboots-here", source: "live", pools: [pool("Reboot", 3)] },
        ...["u1", "u2", "u3", "u4", "u5"].map((cluster) => ({ cluster, source: "live" as const, pools: [] })),
      ],
      {
        rebootClusters: 1,
        otherClusters: 5,
        names: {
          reboot: ["reboots-here"],
          other: ["p1", "p2", "p3", "p4", "p5"],
          refused: [],
          unmatched: ["u1", "u2", "u3", "u4", "u5"],
          failed: [],
        },
      },
      "reboots 3 nodes in 1 cluster (reboots-here), no reboot in 5 clusters (15 nodes: p1, p2, p3 and 2 more); 5 clusters left out, no pool there selects this MachineConfig (u1, u2, u3 and 2 more)",
    ],
  ];
  it.each(cases)("%s", (_rule, clusters, counts, text) => {
    expect(summarizeFleet(clusters)).toMatchObject({ ...counts, text });
  });
});
