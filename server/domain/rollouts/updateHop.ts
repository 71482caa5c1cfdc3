import { formatVersion, type Version } from "../versions";

/**
 * How far one update may go, as the CVO allows it (openshift/cluster-version-operator
 * pkg/payload/precondition/clusterversion/gianthop.go, `GiantHop.Run`, precondition
 * `ClusterVersionGiantHop`): within the current minor or to the next one; a later major only as
 * 4.y → 5.0, which upstream marks temporary. Anything further is refused (reasons
 * `MultipleMinorVersionsUpdate`, `MajorVersionUpdate`), EUS-to-EUS included: that path is two
 * updates, through the odd minor between, with the worker pools paused so that only the control
 * plane stops there. Null when the hop is allowed (or is no update: the caller says so).
 */
export function updateHopRefusal(current: Version, target: Version): string | null {
  const from = formatVersion(current);
  if (target.major > current.major) {
    const refused = giantHopMajor(current, target);
    if (!refused) return null;
    return `${formatVersion(target)} is a later major version than ${from}, and OpenShift updates only within a major version (or from 4 to 5.0): the CVO refuses it (${refused.reason}: "${refused.message}")`;
  }
  if (target.major !== current.major || target.minor <= current.minor + 1) return null;
  const via: string[] = [];
  for (let m = current.minor + 1; m < target.minor && via.length < 30; m++) via.push(`${current.major}.${m}`);
  const through = via.length > 3 ? `each minor from ${via[0]} to ${via[via.length - 1]}` : via.join(", ");
  const eus =
    current.major === 4 && current.minor % 2 === 0 && target.minor === current.minor + 2
      ? `; an EUS-to-EUS update from ${current.major}.${current.minor} also goes through ${via[0]}, with the worker pools paused so that only the control plane stops there`
      : "";
  return (
    `${formatVersion(target)} is ${target.minor - current.minor} minor versions beyond ${from}, and OpenShift updates one minor version at a time: ` +
    `the CVO refuses it (MultipleMinorVersionsUpdate). Update it through ${through} first${eus}`
  );
}

/**
 * The CVO's own refusal of a later major, in its words (gianthop.go, the same on release-4.22 through
 * main): 4.y → 5.0 is let through from any 4.y ("temporary access from v4 to 5.0, to be reverted once
 * we are in v5 development"); 4.y → 5.z with z ≥ 1, and any other later major, is refused with
 * MajorVersionUpdate. Null when the target is no later major, or is 5.0 from a 4.
 */
export function giantHopMajor(current: Version, target: Version): { reason: "MajorVersionUpdate"; message: string } | null {
  if (target.major <= current.major) return null;
  const toFive = target.major === 5 && current.major === 4;
  if (toFive && target.minor === 0) return null;
  return {
    reason: "MajorVersionUpdate",
    message: `${formatVersion(target)} has a larger major version than the current target ${formatVersion(current)} (${target.major} > ${current.major}), and only updates within the current major version${toFive ? " or to 5.0" : ""} are supported.`,
  };
}
