import { giantHopMajor } from "../rollouts/updateHop";
import { cvoReleaseFor, describeCvoRelease, type CvoRelease } from "../cvoRelease";
import { conditionOf, type Condition, type ConditionalUpdateRisk } from "../snapshot";
import { compareVersions, formatMinor, parseOcpVersion, type Version } from "../versions";
import {
  CO_MC,
  CV,
  cvProblem,
  fail,
  list,
  MAX_STEPS,
  notAnUpdate,
  pass,
  plural,
  quote,
  unknown,
  warn,
  type Context,
  type Draft,
  type Evidence,
  type GateContext,
} from "./model";
import { bare, MCO_HINT, NAMED_BY_CHECK, readUpgradeable } from "./upgradeableCauses";

/** Checks on ClusterVersion: the target, its conditions, admin gates and the update service's recommendations. */

export function targetVersionCheck(c: GateContext): Draft {
  const evidence = [{ kind: "ClusterVersion", name: "version", field: "status.history" }];
  if (!c.target.version)
    return fail(`"${c.target.text}" is not an OpenShift version.`, [], "Choose a target such as 4.23 (a minor) or 4.22.5 (one release).");
  if (!c.current) return unknown(`The current version is not known: ${cvProblem(c.s)}.`, evidence);
  const from = c.currentText;
  switch (c.kind) {
    case "same":
      return pass(`The cluster already runs ${from}; there is nothing to update.`, evidence);
    case "downgrade":
      return fail(
        `${c.target.text} is older than the current ${from}. OpenShift does not support downgrades.`,
        evidence,
        "Choose a target newer than the current version.",
      );
    case "z-stream":
      return pass(`${c.target.text} is a z-stream update within ${formatMinor(c.current)} from ${from}.`, evidence);
    case "minor": {
      if (c.target.version.major === c.current.major) return pass(`${c.target.text} is a minor update from ${from}.`, evidence);
      // A later major, as the CVO's ClusterVersionGiantHop precondition judges it.
      const refused = giantHopMajor(c.current, c.target.version);
      if (refused)
        return fail(
          `${c.target.text} is a later major version than ${from}, and the CVO refuses it: precondition ClusterVersionGiantHop, reason ${refused.reason}: "${refused.message}"`,
          evidence,
          c.current.major === 4
            ? `Update to 5.0 first: it is the one major update the CVO takes from any 4.y.`
            : "Choose a target within the current major version.",
        );
      return pass(
        `${c.target.text} is a major update from ${from}: the CVO takes 4.y → 5.0 from any 4.y (ClusterVersionGiantHop lets it through), and the minor-update gates apply to it.`,
        evidence,
      );
    }
    default: {
      const via: string[] = [];
      // Bounded: a target far beyond any release would otherwise list (and assess) every minor between.
      for (let m = c.current.minor + 1; m < c.target.version.minor && via.length < MAX_STEPS; m++) via.push(`${c.current.major}.${m}`);
      return warn(
        `${c.target.text} is ${plural(via.length + 1, "minor update")} away from ${from}: the cluster updates one minor release at a time, through ${list(via)}. ` +
          `Each step needs Upgradeable to be True again, and gates of the intermediate releases (admin-acks, boot-image skew) only show once there.`,
        evidence,
        `Plan the update as separate steps through ${list(via)}; on EUS channels the worker pools can stay paused across the intermediate minor.`,
      );
    }
  }
}

export function upgradeableCheck(c: GateContext): Draft {
  const { s } = c;
  if (!s.version) return unknown(`The ClusterVersion Upgradeable condition is not known: ${cvProblem(s)}.`, [CV("Upgradeable")]);
  const cv = conditionOf(s.version.conditions, "Upgradeable");
  const co = conditionOf(s.machineConfigOperator, "Upgradeable");
  const blocking = [
    cv?.status === "False" ? { who: "ClusterVersion", c: cv, evidence: CV("Upgradeable") } : null,
    co?.status === "False" ? { who: "ClusterOperator machine-config", c: co, evidence: CO_MC("Upgradeable") } : null,
  ].filter((b): b is { who: string; c: Condition; evidence: Evidence } => !!b);
  const evidence = [CV("Upgradeable"), ...(s.machineConfigOperator ? [CO_MC("Upgradeable")] : [])];
  if (blocking.length === 0) {
    if (cv?.status === "Unknown")
      return unknown(`ClusterVersion reports Upgradeable=Unknown (${cv.reason ?? "no reason"}): ${quote(cv.message)}.`, evidence);
    // Recent CVOs remove the condition when nothing blocks (docs/openshift.md §20.2): missing means True.
    return pass(
      cv ? "ClusterVersion reports Upgradeable=True." : "Nothing blocks updates: ClusterVersion has no Upgradeable=False condition.",
      evidence,
    );
  }
  const refused = notAnUpdate(c);
  // The CVO folds a single blocking operator's message into its own; say it once.
  const folded = blocking.length === 2 && !!co?.message && !!cv?.message?.includes(co.message);
  // Several causes are listed one by one below, in the CVO's words, rather than as its one long message.
  const severalCauses = cv?.status === "False" && !!cv.reason && LISTED_REASONS.has(cv.reason);
  const said = (folded ? blocking.slice(0, 1) : blocking)
    .map(
      (b) =>
        `${b.who} reports Upgradeable=False, reason ${b.c.reason ?? "(none)"}` +
        (b.c === cv && severalCauses && c.minorUpdate && !refused ? "" : `: ${quote(b.c.message)}`),
    )
    .join(". ");
  if (refused)
    return unknown(
      `${said}. Whether it matters is not known: ${refused}.`,
      blocking.map((b) => b.evidence),
    );
  if (!c.minorUpdate)
    return pass(
      `${said}. Upgradeable=False blocks only minor (y-stream) updates, so the ${c.kind === "same" ? "current release" : `z-stream update to ${c.target.text}`} is not blocked; it still blocks the next minor update.`,
      blocking.map((b) => b.evidence),
    );
  // Which causes the condition is made of, read as the cluster's own CVO writes it (upgradeableCauses.ts).
  const reading = readUpgradeable(s);
  const causes = reading?.causes ?? [];
  // The MCO reports its cause before the CVO's next sync folds it in: count it until then.
  if (co?.status === "False" && !causes.some((x) => co.message && x.words.includes(bare(co.message))))
    causes.push(
      co.reason && NAMED_BY_CHECK[co.reason]
        ? { words: co.message ?? "", ...NAMED_BY_CHECK[co.reason]! }
        : { words: co.message ?? "", hint: MCO_HINT },
    );
  const named = causes.filter((x) => x.check);
  const hints = [...new Set(causes.map((x) => x.hint))];
  const listed =
    reading && severalCauses
      ? ` As ${describeCvoRelease(reading.release)} writes it, ${causes.length === 1 ? "it has one cause" : `it has ${causes.length} causes`}: ` +
        causes.map((x, i) => `(${i + 1}) ${quote(x.words)}${x.check ? ` [see ${CHECK_TITLES[x.check] ?? x.check}]` : ""}`).join("; ") +
        "."
      : "";
  const drafted = fail(
    `${said}.${listed} Upgradeable=False blocks minor updates, so the update to ${c.target.text} cannot start until it is True again.`,
    blocking.map((b) => b.evidence),
    `${hints.length ? hints.join(" ") : "Resolve the reason given in the message."} The condition clears by itself once the cause is gone.`,
  );
  return named.length > 0 && named.length === causes.length ? { ...drafted, causedBy: [...new Set(named.map((x) => x.check!))] } : drafted;
}

/** Reasons whose message holds several causes, or one the reason does not name: their causes are listed. */
const LISTED_REASONS = new Set(["MultipleReasons", "ClusterOperatorsNotUpgradeable", "RiskNameNotCompatibleWithReasonProperty"]);

/** How the checks a cause points at are titled on the cluster page. */
const CHECK_TITLES: Record<string, string> = {
  "admin-acks": "Admin gates",
  "boot-image-skew": "Boot-image skew",
  "pools-degraded": "Degraded pools",
};

export function cvConditionCheck(c: GateContext, type: string, judge: (cond: Condition | null) => Draft): Draft {
  if (!c.s.version) return unknown(`The ClusterVersion ${type} condition is not known: ${cvProblem(c.s)}.`, [CV(type)]);
  return judge(conditionOf(c.s.version.conditions, type));
}

export function failingCheck(c: GateContext): Draft {
  return cvConditionCheck(c, "Failing", (cond) => {
    if (!cond) return unknown("ClusterVersion has no Failing condition, so its health is not known.", [CV("Failing")]);
    if (cond.status === "True")
      return fail(
        `ClusterVersion reports Failing=True (${cond.reason ?? "no reason"}): ${quote(cond.message)}. The cluster cannot fully apply its current release.`,
        [CV("Failing")],
        "Fix what the message names (usually a ClusterOperator that is degraded or not available; see `oc get clusteroperators`) before starting an update.",
      );
    if (cond.status !== "False") return unknown(`ClusterVersion reports Failing=${cond.status}: ${quote(cond.message)}.`, [CV("Failing")]);
    return pass("ClusterVersion reports Failing=False: the current release is fully applied.", [CV("Failing")]);
  });
}

export function invalidCheck(c: GateContext): Draft {
  // Present only when the ClusterVersion spec is invalid (docs/openshift.md §20.4).
  return cvConditionCheck(c, "Invalid", (cond) =>
    cond?.status === "True"
      ? fail(
          `ClusterVersion reports Invalid=True (${cond.reason ?? "no reason"}): ${quote(cond.message)}. The CVO does not act on an invalid spec.`,
          [CV("Invalid")],
          "Correct ClusterVersion spec (desiredUpdate, channel, upstream, capabilities) as the message says.",
        )
      : pass("ClusterVersion spec is valid.", [CV("Invalid")]),
  );
}

export function progressingCheck(c: GateContext): Draft {
  return cvConditionCheck(c, "Progressing", (cond) => {
    if (!cond)
      return unknown("ClusterVersion has no Progressing condition, so whether an update is running is not known.", [CV("Progressing")]);
    if (cond.status === "True" || c.s.version?.updating) {
      const towards = c.s.version?.desired && c.s.version.desired !== c.currentText ? ` towards ${c.s.version.desired}` : "";
      return warn(
        `An update is already in progress${towards}: ${quote(cond.message)}. Starting another one now changes its target midway.`,
        [CV("Progressing"), { kind: "ClusterVersion", name: "version", field: "spec.desiredUpdate" }],
        "Wait for the running update to finish (Progressing=False) before starting the next one.",
      );
    }
    return pass(`No update is in progress: ${quote(cond.message)}.`, [CV("Progressing")]);
  });
}

export function retrievedUpdatesCheck(c: GateContext): Draft {
  return cvConditionCheck(c, "RetrievedUpdates", (cond) => {
    if (!cond)
      return unknown("ClusterVersion has no RetrievedUpdates condition: the update service has not answered yet.", [
        CV("RetrievedUpdates"),
      ]);
    if (cond.status === "True")
      return pass("The cluster retrieved its update recommendations from the update service.", [CV("RetrievedUpdates")]);
    return warn(
      `The cluster could not retrieve update recommendations (RetrievedUpdates=${cond.status}, ${cond.reason ?? "no reason"}): ${quote(cond.message)}. ` +
        "Without them, known risks of the target (conditional updates) cannot be checked.",
      [CV("RetrievedUpdates"), { kind: "ClusterVersion", name: "version", field: "spec.upstream" }],
      "Check the channel and the update service address (spec.upstream) and its reachability; at disconnected sites, run the OpenShift Update Service and point spec.upstream at it.",
    );
  });
}

export function releaseAcceptedCheck(c: GateContext): Draft {
  return cvConditionCheck(c, "ReleaseAccepted", (cond) => {
    if (!cond)
      return unknown("ClusterVersion has no ReleaseAccepted condition, so whether the release payload loaded is not known.", [
        CV("ReleaseAccepted"),
      ]);
    if (cond.status === "False")
      return fail(
        `The release payload was not accepted (ReleaseAccepted=False, ${cond.reason ?? "no reason"}): ${quote(cond.message)}.`,
        [CV("ReleaseAccepted")],
        "Fix what the message names: a missing or untrusted signature, an image that cannot be pulled (mirror, pull secret), or a failed precondition.",
      );
    if (cond.status !== "True")
      return unknown(`ClusterVersion reports ReleaseAccepted=${cond.status}: ${quote(cond.message)}.`, [CV("ReleaseAccepted")]);
    return pass("The cluster's release payload was loaded and accepted.", [CV("ReleaseAccepted")]);
  });
}

/**
 * Admin gates, as the CVO of the cluster's release checks them: every key of ConfigMap
 * openshift-config-managed/admin-gates must match the gate pattern and carry a description, and a gate
 * applies to the release the cluster runs; it is acknowledged when openshift-config/admin-acks has
 * `data[key] === "true"`. An unacknowledged gate sets Upgradeable=False, which blocks minor updates only.
 * - the 4.22 CVO (pkg/cvo/upgradeable.go `checkAdminGate`): `^ack-[4-5][.]([0-9]{1,})-[^-]`, and only the
 *   minor is compared, so `ack-4.22-…` would apply at 5.22 too;
 * - the 4.23 CVO (pkg/risk/adminack/adminack.go `gateApplicableToCurrentVersion`, the same on
 *   release-5.0 and main): `^ack-([4-5][.][0-9]{1,})-[^-]`, and both major and minor must match.
 */
const ADMIN_GATE_KEY: Record<CvoRelease, RegExp> = {
  "4.22": /^ack-[4-5][.]([0-9]{1,})-[^-]/,
  "4.23": /^ack-([4-5][.][0-9]{1,})-[^-]/,
};
const gateApplies = (release: CvoRelease, match: RegExpExecArray, current: Version) =>
  release === "4.22" ? match[1] === String(current.minor) : match[1] === `${current.major}.${current.minor}`;
const GATES = (key?: string): Evidence => ({
  kind: "ConfigMap",
  name: "admin-gates",
  namespace: "openshift-config-managed",
  ...(key ? { field: `data[${key}]` } : {}),
});
const ACKS = (key?: string): Evidence => ({
  kind: "ConfigMap",
  name: "admin-acks",
  namespace: "openshift-config",
  ...(key ? { field: `data[${key}]` } : {}),
});

export function adminAcksCheck(c: GateContext): Draft {
  const refused = notAnUpdate(c);
  if (refused) return unknown(`Admin gates cannot be checked: ${refused}.`, [GATES()]);
  if (!c.minorUpdate) return pass("Admin gates block only minor updates; this z-stream update does not need acknowledgements.", [GATES()]);
  const gates = c.s.adminGates;
  if (!gates || typeof gates !== "object")
    return unknown(
      "ConfigMap admin-gates (openshift-config-managed) could not be read, so required acknowledgements are not known.",
      [GATES()],
      "Check that Fleetskew may read ConfigMaps in openshift-config-managed.",
    );
  const release = cvoReleaseFor(c.current);
  const malformed: string[] = [];
  const empty: string[] = [];
  const applicable: string[] = [];
  for (const [key, value] of Object.entries(gates).sort(([a], [b]) => a.localeCompare(b))) {
    const m = ADMIN_GATE_KEY[release].exec(key);
    if (!m) {
      malformed.push(key);
      continue;
    }
    if (!gateApplies(release, m, c.current!)) continue;
    if (!value) empty.push(key);
    else applicable.push(key);
  }
  if (malformed.length || empty.length)
    return fail(
      [
        malformed.length
          ? `admin-gates has keys ${describeCvoRelease(release)} rejects (${list(malformed)}; ${release === "4.22" ? "reason AdminAckConfigMapGateNameError" : `risks ${list(malformed.map((k) => `AdminAck-${k}`))}`})`
          : "",
        empty.length
          ? `admin-gates has gates without a description (${list(empty)}; ${release === "4.22" ? "reason AdminAckConfigMapGateValueError" : `risks ${list(empty.map((k) => `AdminAck-${k}`))}`})`
          : "",
      ]
        .filter(Boolean)
        .join("; ") + ". The CVO then reports Upgradeable=False, which blocks minor updates.",
      [...malformed, ...empty].map((k) => GATES(k)),
      "admin-gates is shipped with the release; report the broken entry to Red Hat support rather than editing it.",
    );
  if (applicable.length === 0) return pass(`No admin gate applies to ${formatMinor(c.current!)}.`, [GATES()]);
  const acks = c.s.adminAcks;
  if (!acks || typeof acks !== "object")
    return unknown(
      `${plural(applicable.length, "admin gate")} apply (${list(applicable)}), but ConfigMap admin-acks (openshift-config) could not be read.`,
      [...applicable.map((k) => GATES(k)), ACKS()],
      "Check that Fleetskew may read ConfigMaps in openshift-config.",
    );
  const missing = applicable.filter((k) => acks[k] !== "true");
  const multi = c.kind === "multi-minor" ? " Gates of the intermediate minors appear only once the cluster is there." : "";
  if (missing.length === 0)
    return pass(
      `All ${plural(applicable.length, "admin gate")} for ${formatMinor(c.current!)} are acknowledged (${list(applicable)}).${multi}`,
      [...applicable.map((k) => ACKS(k))],
    );
  return fail(
    `${plural(missing.length, "admin gate")} for ${formatMinor(c.current!)} ${missing.length === 1 ? "is" : "are"} not acknowledged: ` +
      missing.map((k) => `${k} (${gates[k]})`).join("; ") +
      `. Until acknowledged, ClusterVersion reports Upgradeable=False (${release === "4.22" ? "AdminAckRequired" : `risk ${missing.length === 1 ? `AdminAck-${missing[0]}` : "AdminAck-<gate> for each"}`}) and minor updates are blocked.${multi}`,
    missing.flatMap((k) => [GATES(k), ACKS(k)]),
    `After doing what each gate describes, set the key to "true" in ConfigMap admin-acks in openshift-config, e.g. ` +
      `oc -n openshift-config patch cm admin-acks --type=merge -p '{"data":{"${missing[0]}":"true"}}'.`,
  );
}

export function conditionalRisksCheck(c: Context): Draft {
  const refused = notAnUpdate(c);
  if (refused) return unknown(`Update recommendations cannot be checked: ${refused}.`, [CV("RetrievedUpdates")]);
  if (c.kind === "same") return pass("The cluster already runs the target; there is no update to recommend.");
  if (!c.s.version) return unknown(`Update recommendations are not known: ${cvProblem(c.s)}.`);
  const t = c.target.version!;
  const matches = (v: string) => {
    if (typeof v !== "string") return false;
    if (!c.target.minorOnly) return v.trim() === c.target.text;
    const p = parseOcpVersion(v);
    return !!p && p.major === t.major && p.minor === t.minor && compareVersions(p, c.current!) > 0;
  };
  const available = (c.s.version.availableUpdates ?? []).filter(matches);
  const conditional = (c.s.version.conditionalUpdates ?? []).filter((u) => matches(u?.version));
  const evAvailable: Evidence = { kind: "ClusterVersion", name: "version", field: "status.availableUpdates" };
  const evConditional: Evidence = { kind: "ClusterVersion", name: "version", field: "status.conditionalUpdates" };
  if (available.length)
    return pass(
      c.target.minorOnly
        ? `The update service recommends ${list(available)} in ${c.target.label}.`
        : `${c.target.text} is a recommended update for this cluster.`,
      [evAvailable],
    );
  if (conditional.length) {
    // Accepted risks (spec.desiredUpdate.acceptRisks, gate ClusterUpdateAcceptRisks) as the CVO applies
    // them (pkg/cvo/availableupdates.go `evaluateConditionalUpdate`, docs/openshift.md §27.1): an accepted
    // risk clears only where it applies (Applies=True); one whose exposure is Unknown leaves the update
    // out (EvaluationFailed) accepted or not; and a HyperShift CVO ignores the list altogether.
    const hostedControlPlane = c.s.topology === "External";
    const listed = new Set(Array.isArray(c.s.version.acceptRisks) ? c.s.version.acceptRisks : []);
    const accepted = hostedControlPlane ? new Set<string>() : listed;
    // A firing alert the CVO made a risk of (pkg/risk/alert: Applies reason Alert:firing) is shown by the
    // alert checks where the alerts were read; named here, not counted a second time.
    const alertsShown = !!c.s.alerts;
    const isAlert = (r: ConditionalUpdateRisk) => /^Alert:/.test(r.appliesReason ?? "");
    // A risk without a reported Applies (a snapshot of a cluster whose status does not carry it) is
    // taken to clear when accepted, as it does wherever the CVO finds it applying.
    const clear = (r: ConditionalUpdateRisk) => r.applies === "False" || (r.applies !== "Unknown" && accepted.has(r.name));
    const risks = conditional.flatMap((u) => (u.risks ?? []).map((r) => ({ version: u.version, ...r })));
    const alertRisks = [...new Set(risks.filter(isAlert).map((r) => r.name))];
    const applies = (r: ConditionalUpdateRisk) =>
      r.applies === "True"
        ? "applies to this cluster"
        : r.applies === "False"
          ? "does not apply to this cluster"
          : r.applies === "Unknown"
            ? `whether it applies is unknown${r.appliesReason ? ` (${r.appliesReason})` : ""}`
            : null;
    const shown = risks.filter((r) => !(alertsShown && isAlert(r)));
    const described = shown.length
      ? shown
          .map((r) => {
            const notes = [
              applies(r),
              listed.has(r.name)
                ? hostedControlPlane
                  ? "listed as accepted, which a HyperShift CVO ignores"
                  : r.applies === "Unknown"
                    ? "accepted, which does not clear a risk whose exposure is unknown"
                    : "accepted by the cluster"
                : null,
            ].filter(Boolean);
            return `${r.name}${c.target.minorOnly ? ` (${r.version})` : ""}${notes.length ? ` [${notes.join("; ")}]` : ""}: ${r.message}${r.url ? ` (${r.url})` : ""}`;
          })
          .join("; ")
      : "no risk details given";
    const alertText =
      alertsShown && alertRisks.length
        ? ` The CVO also holds ${c.target.minorOnly ? "these updates" : "the update"} back for ${plural(alertRisks.length, "firing alert")} it counts as risks (${list(alertRisks)}), which the alert checks show.`
        : "";
    const acceptedText = listed.size
      ? hostedControlPlane
        ? ` spec.desiredUpdate.acceptRisks names ${list([...listed].sort())}, but a HyperShift CVO does not reconcile it: it reports the spec invalid ("spec.desiredUpdate.acceptRisks: Forbidden: acceptRisks must not be specified") and ignores the whole desiredUpdate.`
        : ` The cluster accepts the risks ${list([...listed].sort())} (spec.desiredUpdate.acceptRisks).`
      : "";
    // The CVO's own verdict, where it gave one: on clusters without the gate the only place its words show.
    const verdicts = conditional
      .filter((u) => u.recommendedReason || u.recommendedMessage)
      .map(
        (u) =>
          `${u.version}: Recommended=${u.recommended} (${u.recommendedReason ?? "no reason"})${u.recommendedMessage ? ` "${u.recommendedMessage}"` : ""}`,
      );
    const cvoText = verdicts.length ? ` The CVO says: ${verdicts.join("; ")}.` : "";
    const what = c.target.minorOnly ? list(conditional.map((u) => u.version)) : c.target.text;
    const evidence = [
      evConditional,
      ...(listed.size ? [{ kind: "ClusterVersion", name: "version", field: "spec.desiredUpdate.acceptRisks" }] : []),
    ];
    const cleared = conditional.find(
      (u) => u.recommended === "True" || (!u.risksCut && (u.risks ?? []).length > 0 && (u.risks ?? []).every(clear)),
    );
    if (cleared)
      return pass(
        `${cleared.version} is offered as a conditional update, and each of its risks either does not apply to this cluster or is accepted: ${described}.${acceptedText}${cvoText}`,
        evidence,
      );
    // Held back by firing alerts alone, which the alert checks already count: named, not warned twice.
    const heldByAlertsOnly = conditional.find(
      (u) => !u.risksCut && (u.risks ?? []).length > 0 && (u.risks ?? []).every((r) => clear(r) || (alertsShown && isAlert(r))),
    );
    if (heldByAlertsOnly && alertRisks.length)
      return pass(
        `${heldByAlertsOnly.version} carries no risk of its own for this cluster${shown.length ? ` (${described})` : ""}.${alertText}${acceptedText}${cvoText}`,
        evidence,
      );
    return warn(
      `${what} ${conditional.length === 1 ? "is" : "are"} offered only as a conditional update with known risks for this cluster: ${described}.${alertText}${acceptedText}${cvoText} ` +
        "It can still be applied after accepting the risks.",
      evidence,
      "Read each risk and decide whether it applies; to go ahead, accept it explicitly (oc adm upgrade --to ... --allow-not-recommended; " +
        "where the cluster serves spec.desiredUpdate.acceptRisks, `oc adm upgrade accept <risk>`), or wait for a release without the risk.",
    );
  }
  const retrieved = conditionOf(c.s.version.conditions, "RetrievedUpdates");
  if (retrieved?.status === "True")
    return warn(
      c.kind === "multi-minor"
        ? `${c.target.text} is not a direct update from ${c.currentText}; the update service only lists the next step, so the path goes through the intermediate minors.`
        : `The update service does not list ${c.target.text} as an update from ${c.currentText} (not in this channel, or not a supported path).`,
      [evAvailable, evConditional],
      "Pick a target the update service lists, or change the channel (spec.channel) to one that contains the target.",
    );
  return unknown(
    `Whether ${c.target.text} is a recommended update is not known: the cluster has not retrieved update recommendations (RetrievedUpdates=${retrieved?.status ?? "missing"}).`,
    [CV("RetrievedUpdates")],
  );
}
