import { describe, expect, it } from "vitest";
import { recordedCvoAnswers } from "../testing/cvoAnswers";
import { generateCvoCases, RECORDED, type ConditionalCase, type PreconditionCase, type UpgradeableCase } from "../domain/upstream/cvoCases";
import { cvoUpgradeable, giantHopRefusal, minorUpdateBlocked } from "./cvo";
import { recommendedFor } from "./cvoAlertRisks";

/**
 * The simulated CVO against the CVO's own Go code (release-4.22 at 9b55234a27cf, release-4.23 at
 * aad19c11058a) on the generated cases (docs/openshift.md §20.6): the same conditions, word for word.
 * Left out: cases without admin-gates (the simulator skips the check for dumps that lack the
 * ConfigMap, where the CVO reports it missing) and resource deletions (the simulator does not delete).
 */
const answers = recordedCvoAnswers();
const cases = generateCvoCases(RECORDED.seed, RECORDED.count);

describe("the simulated CVO says what the CVO's code says", () => {
  it("Upgradeable, condition by condition, on every case it models", () => {
    const modelled = cases.filter(
      (c): c is UpgradeableCase => c.kind === "upgradeable" && c.adminGates !== null && c.deletions.length === 0,
    );
    expect(modelled.length).toBeGreaterThan(400);
    const disagree = modelled.flatMap((c) => {
      const got = cvoUpgradeable({ ...c, carried: [] }).map(({ type, status, reason, message }) => ({ type, status, reason, message }));
      const want = answers.get(c.id)?.conditions ?? [];
      return JSON.stringify(got) === JSON.stringify(want) ? [] : [{ id: c.id, got, want }];
    });
    expect(disagree.slice(0, 3)).toEqual([]);
  });

  it("the GiantHop and Upgradeable preconditions", () => {
    const disagree = cases
      .filter((c): c is PreconditionCase => c.kind === "precondition")
      .flatMap((c) => {
        const a = answers.get(c.id)!;
        const hop = giantHopRefusal(c.desired, c.target);
        const blocked = minorUpdateBlocked(c.desired, c.target, c.upgradeable ?? undefined);
        const sameHop =
          JSON.stringify(hop) === JSON.stringify(a.giantHop ? { reason: a.giantHop.reason, message: a.giantHop.message } : null);
        return sameHop && blocked === (a.upgradeable?.blocking === true) ? [] : [{ id: c.id, hop, blocked, want: a }];
      });
    expect(disagree.slice(0, 3)).toEqual([]);
  });

  it("an update's Recommended condition, word for word, where the CVO reconciles accepted risks", () => {
    const disagree = cases
      .filter((c): c is ConditionalCase => c.kind === "conditional" && c.acceptRisksReconciled)
      .flatMap((c) => {
        const risks = c.risks.map((r) => ({
          ...r,
          conditions: [
            {
              type: "Applies" as const,
              status: r.applies,
              reason: { True: "Match", False: "NotMatch", Unknown: "EvaluationFailed" }[r.applies],
              message: r.appliesMessage,
              lastTransitionTime: "",
            },
          ],
        }));
        const { status, reason, message } = recommendedFor(risks, new Set(c.acceptRisks), "");
        const want = answers.get(c.id)!.recommended!;
        return JSON.stringify({ status, reason, message }) ===
          JSON.stringify({ status: want.status, reason: want.reason, message: want.message })
          ? []
          : [{ id: c.id, got: { status, reason, message }, want }];
      });
    expect(disagree.slice(0, 3)).toEqual([]);
  });
});
