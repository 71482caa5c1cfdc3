import { describe, expect, it } from "vitest";
import { recordedCvoAnswers, type CvoAnswer } from "../../testing/cvoAnswers";
import { evaluateReadiness, evaluateUpdateGates } from "../readiness";
import { readUpgradeable } from "../readiness/upgradeableCauses";
import { giantHopMajor, updateHopRefusal } from "../rollouts/updateHop";
import type { ClusterSnapshot, Condition } from "../snapshot";
import { healthyCluster, history, versionFacts } from "../testing/snapshots";
import { parseOcpVersion } from "../versions";
import { generateCvoCases, RECORDED, type ConditionalCase, type PreconditionCase, type UpgradeableCase } from "./cvoCases";

/**
 * Fleetskew's reading of the CVO against the CVO's own Go code (release-4.22 at 9b55234a27cf,
 * release-4.23 at aad19c11058a), on the generated cases of cvoCases.ts; the CVO's answers were recorded
 * once (docs/openshift.md §20.6).
 */
const answers = recordedCvoAnswers();
const cases = generateCvoCases(RECORDED.seed, RECORDED.count);
const ofKind = <K extends string>(kind: K) => cases.filter((c) => c.kind === kind);

const cond = (c: { type: string; status: string; reason?: string | null; message?: string | null }): Condition => ({
  type: c.type,
  status: c.status,
  reason: c.reason ?? null,
  message: c.message ?? null,
  since: null,
});

/** The check each cause points at, as Fleetskew names it; "own" for a cause no other check names. */
const MCO_CAUSE: Record<string, string> = { ClusterBootImageSkewError: "boot-image-skew", DegradedPool: "pools-degraded" };
function expectedCauses(c: UpgradeableCase, sources: NonNullable<CvoAnswer["sources"]>): { named: string[]; own: boolean } {
  const named = new Set<string>();
  let own = false;
  const operator = (name: string) => {
    const o = c.operators.find((x) => x.name === name);
    const check = name === "machine-config" && o?.upgradeable ? MCO_CAUSE[o.upgradeable.reason] : undefined;
    if (check) named.add(check);
    else own = true;
  };
  for (const s of sources) {
    const name = typeof s === "string" ? s : s.type;
    if (/^AdminAck|^UpgradeableAdminAckRequired$/.test(name)) named.add("admin-acks");
    else if (name.startsWith("ClusterOperatorUpgradeable-")) operator(name.slice("ClusterOperatorUpgradeable-".length));
    else if (name === "UpgradeableClusterOperators")
      for (const o of c.operators.filter((x) => x.upgradeable?.status === "False")) operator(o.name);
    else own = true;
  }
  return { named: [...named].sort(), own };
}

describe(`the CVO's own answers to ${RECORDED.count} generated cases of each kind (seed ${RECORDED.seed})`, () => {
  it("are all recorded", () => {
    expect(cases.filter((c) => !answers.has(c.id)).map((c) => c.id)).toEqual([]);
  });

  it("Upgradeable (4.22 setUpgradeableConditions, 4.23 setUpgradeableCondition): Fleetskew finds every cause, and names the same checks", () => {
    const disagree: string[] = [];
    for (const c of ofKind("upgradeable") as UpgradeableCase[]) {
      const a = answers.get(c.id)!;
      const mco = c.operators.find((o) => o.name === "machine-config")?.upgradeable;
      const reading = readUpgradeable({
        version: { current: c.current, desired: c.desired, updating: c.progressing, conditions: (a.conditions ?? []).map(cond) },
        machineConfigOperator: mco ? [cond({ type: "Upgradeable", ...mco })] : [],
        adminGates: c.adminGates,
        adminAcks: c.adminAcks,
        problems: [],
      });
      const expected = expectedCauses(c, a.sources ?? []);
      const blocked = (a.conditions ?? []).some((x) => x.type === "Upgradeable" && x.status === "False");
      const got = reading
        ? {
            named: [...new Set(reading.causes.flatMap((x) => (x.check ? [x.check] : [])))].sort(),
            own: reading.causes.some((x) => !x.check),
          }
        : null;
      if (!blocked ? got !== null : JSON.stringify(got) !== JSON.stringify(expected))
        disagree.push(`${c.id}: CVO ${JSON.stringify(expected)}, Fleetskew ${JSON.stringify(got)}`);
    }
    expect(disagree).toEqual([]);
  });

  it("GiantHop.Run: Fleetskew refuses the same hops, with the CVO's reason and, for a later major, its words", () => {
    const disagree: string[] = [];
    for (const c of ofKind("precondition") as PreconditionCase[]) {
      const a = answers.get(c.id)!;
      const [from, to] = [parseOcpVersion(c.desired)!, parseOcpVersion(c.target)!];
      const major = giantHopMajor(from, to);
      const refusal = to.major > from.major ? major : updateHopRefusal(from, to);
      const reason = major?.reason ?? (refusal ? "MultipleMinorVersionsUpdate" : null);
      const plain = !/[-+]/.test(c.desired + c.target);
      if (reason !== (a.giantHop?.reason ?? null) || (plain && major && major.message !== a.giantHop?.message))
        disagree.push(`${c.id} ${c.desired}→${c.target}: CVO ${a.giantHop?.reason ?? "allows"}, Fleetskew ${reason ?? "allows"}`);
    }
    expect(disagree).toEqual([]);
  });

  it("Upgradeable.Run: Fleetskew's Upgradeable check fails exactly the updates the precondition blocks", () => {
    const disagree: string[] = [];
    for (const c of ofKind("precondition") as PreconditionCase[]) {
      const a = answers.get(c.id)!;
      const gates = evaluateUpdateGates(
        {
          version: {
            current: c.desired,
            desired: c.desired,
            updating: false,
            conditions: c.upgradeable ? [cond({ type: "Upgradeable", ...c.upgradeable })] : [],
          },
          machineConfigOperator: [],
          adminGates: {},
          adminAcks: {},
          problems: [],
        },
        c.target,
      );
      const failed = gates.checks.find((x) => x.id === "cv-upgradeable")!.status === "fail";
      if (failed !== (a.upgradeable?.blocking === true))
        disagree.push(
          `${c.id} ${c.desired}→${c.target} ${c.upgradeable?.status}: CVO blocks ${a.upgradeable?.blocking === true}, Fleetskew ${failed}`,
        );
    }
    expect(disagree).toEqual([]);
  });

  it("evaluateConditionalUpdate: Fleetskew clears an update exactly when the CVO recommends it", () => {
    const disagree: string[] = [];
    for (const c of ofKind("conditional") as ConditionalCase[]) {
      const a = answers.get(c.id)!;
      const s: ClusterSnapshot = healthyCluster({
        // A CVO that does not reconcile acceptRisks is, among clusters that serve the field, a HyperShift one.
        topology: c.acceptRisksReconciled ? "HighlyAvailable" : "External",
        alerts: null,
        version: {
          ...versionFacts(history("4.22.5"), {
            conditionalUpdates: [
              {
                version: "4.23.1",
                recommended: "Unknown",
                risks: c.risks.map((r) => ({
                  name: r.name,
                  message: r.message,
                  url: r.url,
                  applies: r.applies,
                  appliesReason: { True: "Match", False: "NotMatch", Unknown: "EvaluationFailed" }[r.applies],
                  appliesMessage: r.appliesMessage,
                })),
              },
            ],
          }),
          acceptRisks: c.acceptRisks,
        },
      });
      const cleared = evaluateReadiness(s, "4.23.1").checks.find((x) => x.id === "conditional-update-risks")!.status === "pass";
      if (cleared !== (a.recommended?.status === "True"))
        disagree.push(`${c.id}: CVO Recommended=${a.recommended?.status} (${a.recommended?.reason}), Fleetskew cleared ${cleared}`);
    }
    expect(disagree).toEqual([]);
  });
});
