import { assessSkew, type SkewAssessment } from "../clusterSkew";
import { describeMcoRelease } from "../mcoRelease";
import { oldestBootImage } from "../oldestBootImage";
import { bootImagesSupported } from "../platforms";
import { installVersion, UPGRADEABLE_SKEW_REASON } from "../skew";
import { conditionOf, decisionAt, type ClusterSnapshot } from "../snapshot";
import { parseOcpVersion, parseRhcosBuild, type Version } from "../versions";
import {
  CO_MC,
  CV_HISTORY,
  downgradeOnProblem,
  fail,
  list,
  MACHINE_SET,
  MAX_STEPS,
  MC_SKEW,
  notAnUpdate,
  pass,
  plural,
  problemOf,
  quote,
  unknown,
  warn,
  type Context,
  type Draft,
  type Evidence,
} from "./model";
import { bootsWindows } from "../bootImageInputs";
import { platformMinor } from "../skewEnforcement";

/** Checks on boot images: skew against the target's limit, MachineSets the MCO skips, a RHEL major change. */

const BY_HAND_OR_OPT_OUT =
  "update them by hand and then request a manual acknowledgement in Fleetskew (bootImageSkewEnforcement Manual with the oldest boot image). " +
  "Or opt out with bootImageSkewEnforcement mode None, knowing that scaling up may then fail with old boot images.";

/** What to do about a skew block, for this cluster: with managed boot images on, what makes the MCO skip MachineSets is the thing to fix. */
function skewRemediation(s: ClusterSnapshot): string {
  const managedAll = (s.managedMachineSets?.spec ?? s.managedMachineSets?.status) === "All";
  const skipped = managedAll ? (s.machineSets ?? []).filter((m) => m?.mco?.action === "skip") : [];
  if (skipped.length)
    return (
      `Managed boot images are on, but the MCO skips ${skipped.map((m) => `${m.machineSet} (${m.mco.reason})`).join(", ")} and so keeps the install version: ` +
      `fix what makes it skip them so it can update their boot images, or ${BY_HAND_OR_OPT_OUT}`
    );
  return `Update the MachineSets' boot images: turn on managed boot images (MachineConfiguration spec.managedBootImages, MachineSets mode All) or ${BY_HAND_OR_OPT_OUT}`;
}

const recordText = (a: SkewAssessment) =>
  a.enforcement.mode === "None"
    ? "mode None"
    : `${a.enforcement.mode} ${a.enforcement.value?.ocpVersion ?? a.enforcement.value?.rhcosVersion ?? "(no value)"}`;

function skewEvidence(c: Context, a: SkewAssessment | null): Evidence[] {
  const ev: Evidence[] = [CO_MC("Upgradeable"), MC_SKEW];
  if (a?.enforcement.installVersionFallback) ev.push(CV_HISTORY);
  const skipped = (c.s.machineSets ?? []).filter((m) => decisionAt(m, a?.release).action === "skip");
  if (a?.enforcement.installVersionFallback) for (const m of skipped) ev.push(MACHINE_SET(m.machineSet));
  return ev;
}

export function bootImageSkewCheck(c: Context): Draft {
  const refused = notAnUpdate(c);
  if (refused) return unknown(`Boot-image skew cannot be assessed: ${refused}.`, [CO_MC("Upgradeable"), MC_SKEW]);
  const { s, limits } = c;
  const now = assessSkew(s, c.currentText!, limits);
  const co = conditionOf(s.machineConfigOperator, "Upgradeable");
  const ownBlock = co?.status === "False" && co.reason === UPGRADEABLE_SKEW_REASON ? co : null;
  // At the current release a predicted block means the status was unreadable; trust the ClusterOperator when it says True.
  const predictedNow =
    !ownBlock && now.block && !(now.enforcement.source === "predicted" && co && co.status !== "False") ? now.block : null;
  const blockedNowText = ownBlock
    ? `ClusterOperator machine-config reports Upgradeable=False, reason ${UPGRADEABLE_SKEW_REASON}: ${quote(ownBlock.message)}`
    : predictedNow
      ? `the cluster's boot-image record (${recordText(now)}) is below the limit, so the MCO blocks minor updates with reason ${UPGRADEABLE_SKEW_REASON}: ${quote(predictedNow.message)}` +
        (now.notes.length ? ` (${now.notes.join("; ")})` : "")
      : null;

  if (!c.minorUpdate) {
    const what = c.kind === "same" ? "the current release" : `the z-stream update to ${c.target.text}`;
    return pass(
      blockedNowText
        ? `Boot-image skew blocks only minor updates, so ${what} is not blocked. But ${blockedNowText}. That still blocks the next minor update.`
        : `Boot-image skew blocks only minor updates; ${what} is not affected.`,
      skewEvidence(c, now),
    );
  }

  if (ownBlock)
    return fail(
      `${blockedNowText}. Minor updates are blocked until the boot images are within the limit.`,
      skewEvidence(c, now),
      skewRemediation(s),
    );
  if (predictedNow) {
    const draft = `Predicted: ${blockedNowText}.`;
    return now.enforcement.source === "cluster"
      ? fail(`${draft} Minor updates are blocked until the boot images are within the limit.`, skewEvidence(c, now), skewRemediation(s))
      : unknown(`${draft} The cluster's own skew status could not be read to confirm it.`, skewEvidence(c, now), skewRemediation(s));
  }

  // Releases passed through on the way (multi-minor): a block there stops the path before the target.
  const t = c.target.version!;
  const cur = c.current!;
  if (c.kind === "multi-minor") {
    for (let m = cur.minor + 1; m < t.minor && m <= cur.minor + MAX_STEPS; m++) {
      const via = `${t.major}.${m}`;
      const a = assessSkew(s, `${via}.0`, limits);
      if (a.block)
        return fail(
          `Predicted: once at ${via} on the way to ${c.target.text}, the Machine Config Operator will report Upgradeable=False, reason ${UPGRADEABLE_SKEW_REASON}, ` +
            `with the message ${quote(a.block.message)}. Basis: ${a.enforcement.basis} (${recordText(a)}). That blocks the next step, from ${via}, so ${c.target.text} cannot be reached without action. Predicted by the rules of ${describeMcoRelease(a.mcoRelease)}.`,
          skewEvidence(c, a),
          skewRemediation(s),
        );
    }
  }

  const later = assessSkew(s, c.target.text, limits);
  const targetMinor = c.target.label;
  if (later.block)
    return warn(
      `Once at ${targetMinor}, the Machine Config Operator will report Upgradeable=False, reason ${UPGRADEABLE_SKEW_REASON}, with the message ${quote(later.block.message)}. ` +
        `Basis: ${later.enforcement.basis} (${recordText(later)}${later.enforcement.installVersionFallback ? `, the install version from ClusterVersion history` : ""}). ` +
        `This does not stop the update to ${c.target.text}, but it blocks the next minor update after arriving. ` +
        `Predicted by the rules of ${describeMcoRelease(later.mcoRelease)}.` +
        (later.notes.length ? ` Note: ${later.notes.join("; ")}.` : ""),
      skewEvidence(c, later),
      skewRemediation(s),
    );
  if (!later.limits) return pass(`${targetMinor} does not enforce boot-image skew (Fleetskew's limits table).`, skewEvidence(c, later));
  if (later.enforcement.undetermined)
    return unknown(
      `Whether the Machine Config Operator blocks minor updates once at ${targetMinor} depends on what Fleetskew cannot read: ${later.enforcement.undetermined}. ` +
        `Predicted by the rules of ${describeMcoRelease(later.mcoRelease)}.`,
      skewEvidence(c, later),
      skewRemediation(s),
    );
  if (later.enforcement.mode === "None")
    return pass(`At ${targetMinor} boot-image skew is not enforced: ${later.enforcement.basis}.`, skewEvidence(c, later));
  const verdict = later.verdict;
  const unparseable = verdict && (verdict.outcome === "unparseable" || verdict.outcome === "no-value") ? ` ${verdict.warning}.` : "";
  return pass(
    `At ${targetMinor} the MCO's boot-image record will be ${recordText(later)} (${later.enforcement.basis}), within the minimum ${later.limits.ocpVersion} / RHEL ${later.limits.rhelVersion}.${unparseable} ` +
      `Predicted by the rules of ${describeMcoRelease(later.mcoRelease)}.`,
    skewEvidence(c, later),
  );
}

export function machineSetsSkippedCheck(c: Context): Draft {
  const problem = problemOf(c.s, "MachineSets");
  const sets = Array.isArray(c.s.machineSets) ? c.s.machineSets : [];
  if (sets.length === 0)
    return problem
      ? unknown(`MachineSets are not known: ${problem}.`)
      : pass("There are no MachineSets in openshift-machine-api, so there are no boot images for the MCO to update.");
  const release = c.target.version ? c.target.text : c.currentText;
  // CheckBootImagePlatform (featuregates.go) takes the Azure cloud name: Azure Stack Hub is never supported.
  if (!bootImagesSupported(c.s.platform, platformMinor(release), c.s.azureCloudName))
    return downgradeOnProblem(
      pass(
        c.s.platform === "Azure" && c.s.azureCloudName === "AzureStackCloud"
          ? "The MCO does not update MachineSet boot images on Azure Stack Hub (AzureStackCloud); they are updated by hand (see boot-image skew)."
          : `The MCO does not update MachineSet boot images on ${c.s.platform ?? "this platform"}${release ? ` at ${release}` : ""}; they are updated by hand (see boot-image skew).`,
      ),
      problem,
    );
  const skipped = sets.filter((m) => decisionAt(m, release).action === "skip");
  // Excluded ones (Windows, another OS stream…) are neither updated nor counted as skipped (syncMAPIMachineSet).
  const excluded = sets.filter((m) => decisionAt(m, release).action === "exclude");
  const excludedText = excluded.length
    ? ` It leaves out ${plural(excluded.length, "MachineSet")} on purpose, not counted as skipped: ${excluded.map((m) => `${m.machineSet} (${decisionAt(m, release).reason})`).join("; ")}.`
    : "";
  if (skipped.length === 0)
    return downgradeOnProblem(
      pass(
        excluded.length === sets.length
          ? `With managed boot images the MCO would update none of the ${plural(sets.length, "MachineSet")}.${excludedText}`
          : excluded.length
            ? `With managed boot images the MCO would update ${sets.length - excluded.length} of ${plural(sets.length, "MachineSet")}.${excludedText}`
            : `With managed boot images the MCO would update all ${plural(sets.length, "MachineSet")}.`,
      ),
      problem,
    );
  return warn(
    `The MCO skips ${plural(skipped.length, "MachineSet")} even with managed boot images: ${skipped.map((m) => `${m.machineSet} (${decisionAt(m, release).reason})`).join("; ")}. ` +
      `While any MachineSet is skipped, the MCO keeps the install version ${installVersion(c.s.version?.history)} as the cluster's boot image, which is what skew enforcement compares.` +
      excludedText,
    skipped.map((m) => MACHINE_SET(m.machineSet)),
    "Remove what makes the MCO skip each MachineSet (e.g. an owner reference, an AMI chosen by ARN or filters instead of ami.id), or update those boot images by hand and record a manual acknowledgement in Fleetskew.",
  );
}

/** Sets a bundle for `target` pinned (labelled with its release by Fleetskew, see bundles.ts). */

/** RHEL major of an OCP 4.x release's RHCOS: 4.13 moved to RHEL 9; null when not known (a later major). */
const rhelOfRelease = (v: Version | null): number | null => (!v || v.major !== 4 ? null : v.minor >= 13 ? 9 : 8);

export function rhelMajorChangeCheck(c: Context): Draft {
  const refused = notAnUpdate(c);
  if (refused) return unknown(`The RHEL version change cannot be assessed: ${refused}.`);
  const targetRhel = rhelOfRelease(c.target.version);
  if (!targetRhel) return unknown(`Which RHEL major ${c.target.text} is based on is not known to Fleetskew.`);
  const all = Array.isArray(c.s.machineSets) ? c.s.machineSets : [];
  // A Windows MachineSet boots Windows: no RHEL, and the MCO leaves it out (syncMAPIMachineSet).
  const sets = all.filter((m) => !bootsWindows(m));
  if (sets.length === 0)
    return problemOf(c.s, "MachineSets")
      ? unknown(`MachineSet boot images are not known: ${problemOf(c.s, "MachineSets")}.`)
      : pass(
          all.length
            ? "Only Windows MachineSets, so no new node boots from an RHCOS boot image."
            : "There are no MachineSets, so no new nodes boot from a MachineSet boot image.",
        );
  const rhelOf = (m: { ocpVersion: string | null; rhcosBuild: string | null }) =>
    parseRhcosBuild(m.rhcosBuild)?.rhel.major ?? rhelOfRelease(parseOcpVersion(m.ocpVersion));
  const known = sets.map((m) => ({ m, rhel: rhelOf(m) }));
  const older = known.filter((k) => k.rhel !== null && k.rhel < targetRhel);
  const oldest = oldestBootImage(c.s);
  if (older.length)
    return warn(
      `${plural(older.length, "MachineSet")} boot${older.length === 1 ? "s" : ""} from a RHEL ${older[0]!.rhel} based image ` +
        `(${older.map((k) => `${k.m.machineSet}: ${k.m.rhcosBuild ?? k.m.ocpVersion}`).join("; ")}), while ${c.target.text} is RHEL ${targetRhel} based. ` +
        `New nodes boot the old RHEL ${older[0]!.rhel} image first and must upgrade across a RHEL major version on first boot, which is slower and fails more often.`,
      older.map((k) => MACHINE_SET(k.m.machineSet)),
      "Update those MachineSets to a current boot image (managed boot images, or by hand) before relying on scaling after the update.",
    );
  const unknownSets = known.filter((k) => k.rhel === null).map((k) => k.m.machineSet);
  if (unknownSets.length)
    return unknown(
      `The boot image of ${plural(unknownSets.length, "MachineSet")} (${list(unknownSets)}) is not known, so its RHEL version cannot be compared.`,
      unknownSets.map(MACHINE_SET),
    );
  return pass(
    `All MachineSet boot images are RHEL ${targetRhel} based, like ${c.target.text}${oldest ? ` (oldest: ${oldest.rhcosBuild ?? oldest.ocpVersion} on ${oldest.machineSet})` : ""}.`,
  );
}
