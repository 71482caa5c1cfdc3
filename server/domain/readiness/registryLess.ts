import { describeProblem, describeRelease, registryLessState, releaseFor, servableReleases } from "../registryLess";
import {
  downgradeOnProblem,
  fail,
  list,
  notAnUpdate,
  pass,
  problemOf,
  unknown,
  warn,
  type Context,
  type Draft,
  type Evidence,
} from "./model";

/**
 * A cluster installed without a registry updates only to a release its InternalReleaseImage serves,
 * and only while that registry is healthy (docs/openshift.md §24).
 */
const IRI = (field: string): Evidence => ({ kind: "InternalReleaseImage", name: "cluster", field });
const MCN = (name: string): Evidence => ({ kind: "MachineConfigNode", name, field: "status.conditions[InternalReleaseImageDegraded]" });

export function registryLessCheck(c: Context): Draft {
  const state = registryLessState(c.s);
  const problem = problemOf(c.s, "InternalReleaseImage");
  if (!state) {
    if (problem) return unknown(`Whether the cluster was installed without a registry is not known: ${problem}.`, [IRI("status")]);
    return pass("The cluster has no InternalReleaseImage: it pulls releases from a registry or mirror, not from its own nodes.");
  }
  const served = servableReleases(state);
  const servesText = served.length ? list(served.map(describeRelease)) : "no release at all right now";
  const evidence = [
    IRI("status.conditions[Degraded]"),
    IRI("status.releases"),
    ...state.nodes.filter((n) => n.state === "degraded").map((n) => MCN(n.node)),
  ];
  const failures: string[] = [];
  const notUpdate = notAnUpdate(c);
  const sameRelease = c.kind === "same";
  const match = notUpdate || sameRelease ? null : releaseFor(state, c.target.text);
  if (!notUpdate && !sameRelease && (!match || match.state === "unavailable"))
    failures.push(
      match
        ? `${c.target.text} is listed as ${describeRelease(match)} but not available (${[match.reason, match.message].filter(Boolean).join(": ") || "no reason given"})`
        : `the cluster cannot serve ${c.target.text}: its InternalReleaseImage serves ${servesText}`,
    );
  if (state.problems.length) failures.push(`its registry reports ${state.problems.map(describeProblem).join("; ")}`);
  if (failures.length)
    return fail(
      `This cluster was installed without a registry and pulls releases only from its InternalReleaseImage; ${failures.join(". Also, ")}.`,
      evidence,
      match || notUpdate || sameRelease
        ? "Fix the registry on the nodes named (the MCO restarts iri-registry.service; check `oc get machineconfignodes` and the node's port 22625), then check again."
        : "Mirror the target release to a registry the cluster can reach and point its ImageDigestMirrorSets there; OpenShift does not add a release bundle to a running registry-less cluster today (the enhancement describes it, the MCO does not implement it).",
    );
  if (match?.state === "degraded")
    return warn(
      `The cluster serves ${describeRelease(match)} from its InternalReleaseImage, but reports it Degraded: ${[match.reason, match.message].filter(Boolean).join(": ")}.`,
      evidence,
      "Check the nodes' registries (`oc get machineconfignodes`) before starting the update.",
    );
  return downgradeOnProblem(
    pass(
      match
        ? `The cluster was installed without a registry; its InternalReleaseImage serves ${describeRelease(match)} and is healthy.`
        : `The cluster was installed without a registry; its InternalReleaseImage serves ${servesText} and is healthy.`,
      evidence,
    ),
    problem,
  );
}
