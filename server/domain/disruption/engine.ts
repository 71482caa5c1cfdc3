import path from "node:path";
import { diffConfigs, type ConfigDiff } from "./diff";
import { decodeContents, entries, type InflatedSources, type RenderedConfig } from "./machineConfig";
import { describeAction, type Action, type ClusterPolicies, type FilePolicy, type PolicySource } from "./policy";
import { irreconcilableOverridesGate, mcoReleaseFor, type McoRelease } from "../mcoRelease";
import { unreconcilableReasons, type StorageOverride } from "./reconcilable";
import { RegistriesConfError, registriesChangeUnsafeReason } from "./registries";

/**
 * What a node does when its rendered MachineConfig changes from `from` to `to`, decided the way
 * the MCO's daemon decides it (docs/openshift.md §2–§10). Pure; never guesses.
 */
export type ChangeKind = "file" | "unit" | "ssh" | "os";

export type Change = {
  kind: ChangeKind;
  /** Path, unit name, "sshkey" or the OS field that changed. */
  name: string;
  change: "added" | "changed" | "removed";
  /** Which rule or policy entry decided it, in words. */
  decidedBy: string;
  /** What it contributed to the action list. */
  actions: Action[];
};

export type Preview = {
  path: "node-disruption-policy" | "legacy";
  actions: Action[];
  reboot: boolean;
  drain: boolean;
  drainReason: string | null;
  unreconcilable: string[];
  changes: Change[];
  warnings: string[];
  /** Image-mode (on-cluster layering) facts, when either config is for an image-mode pool. */
  imageMode: { newImageBuilt: boolean; note: string } | null;
  /** The MCO release line whose rules the preview follows (docs/openshift.md §25); null when nothing was predicted. */
  mcoRelease: McoRelease | null;
};

export type PreviewOptions = {
  policies: ClusterPolicies;
  policySource: PolicySource;
  /** First boot / HyperShift: the legacy rules (§10). */
  firstBoot?: boolean;
  /**
   * MachineConfiguration spec.irreconcilableValidationOverrides.storage. The MCD reads them only when
   * it is not on first boot (update.go `update`: `if !firstBoot && …`), so they are ignored with firstBoot.
   */
  storageOverrides?: StorageOverride[];
  /** The cluster's release: which MCO's rules apply (mcoRelease.ts). Unknown → the 4.22 line. */
  release?: string | null;
  /** FeatureGate/cluster spec.featureSet, when known: it decides whether IrreconcilableMachineConfig is on. */
  featureSet?: string | null;
  /**
   * FeatureGate/cluster status.featureGates' enabled gates for `release`, when the cluster lists that
   * version (a live cluster's own release): it decides before the feature set's table.
   */
  enabledFeatureGates?: { version: string; enabled: readonly string[] } | null;
  /** Gzip contents inflated ahead of time by the caller (asynchronously, within limits). */
  inflated?: InflatedSources;
};

const REBOOT: Action = { type: "Reboot" };
const RELOAD_CRIO: Action = { type: "Reload", reload: { serviceName: "crio.service" } };
const RESTART_CRIO: Action = { type: "Restart", restart: { serviceName: "crio.service" } };
const REGISTRIES_CONF = "/etc/containers/registries.conf";

/** Go path.Clean for absolute and relative paths. */
const clean = (p: string) => {
  const c = path.posix.normalize(p);
  return c.length > 1 && c.endsWith("/") ? c.slice(0, -1) : c;
};

/** FindClosestFilePolicyPathMatch: exact path, or a directory the file lies under; the longest policy path wins, ties go to the earlier entry. */
export function closestFilePolicy(policies: FilePolicy[], filePath: string): FilePolicy | null {
  let best: FilePolicy | null = null;
  for (const policy of policies) {
    const matches = policy.path === filePath || clean(filePath).startsWith(`${clean(policy.path)}/`);
    if (matches && (!best || policy.path.length > best.path.length)) best = policy;
  }
  return best;
}

/**
 * registries.conf as `isSafeContainerRegistryConfChanges` reads it: through `GetIgnitionFileDataByPath`
 * (helpers.go; docs/openshift.md §6), which decodes the data URL and never decompresses. A gzip file
 * therefore reaches the TOML decoder as binary, which fails, and so does the update.
 */
const fileText = (config: RenderedConfig, p: string, inflated?: InflatedSources): string | null => {
  const file = entries(config.files).find((f) => f.path === p);
  if (!file) return null;
  const compressed = !!file.contents?.compression;
  const decoded = decodeContents(compressed ? { ...file, contents: { ...file.contents, compression: null } } : file, inflated);
  if (decoded.text === null && compressed && decoded.note === "binary contents")
    throw new RegistriesConfError(
      `${p} is ${file.contents!.compression}-compressed, and the MCO reads it without decompressing it (GetIgnitionFileDataByPath), so its TOML check fails and the update fails; write the file uncompressed`,
    );
  if (decoded.text === null) throw new RegistriesConfError(`${p} cannot be judged: ${decoded.note ?? "its contents cannot be read"}`);
  return decoded.text;
};

/** The registries.conf verdict used by Special and the legacy crio actions; throws RegistriesConfError on invalid TOML. */
function registriesUnsafe(from: RenderedConfig, to: RenderedConfig, inflated?: InflatedSources): string | null {
  return registriesChangeUnsafeReason(fileText(from, REGISTRIES_CONF, inflated), fileText(to, REGISTRIES_CONF, inflated));
}

function osChanges(diff: ConfigDiff): Change[] {
  const os: [keyof ConfigDiff, string, string][] = [
    ["osUpdate", "osImageURL", diff.revertFromOCL ? "leaving image mode for the default OS image" : "a new OS image"],
    ["kargs", "kernelArguments", "changed kernel arguments"],
    ["fips", "fips", "a FIPS change"],
    ["kernelType", "kernelType", "a different kernel type"],
    ["extensions", "extensions", "changed RHCOS extensions"],
  ];
  return os
    .filter(([flag]) => diff[flag] === true)
    .map(([, name, what]) => ({
      kind: "os" as const,
      name,
      change: "changed" as const,
      decidedBy: `OS-level change: ${what} always reboots (§4 step 3)`,
      actions: [REBOOT],
    }));
}

/** Steps 8–9: Reboot anywhere wins; None is dropped beside real actions, and several Nones become one. */
export function collapseActions(actions: Action[]): Action[] {
  if (actions.some((a) => a.type === "Reboot")) return [REBOOT];
  const real = actions.filter((a) => a.type !== "None");
  if (real.length > 0) return real;
  return actions.length > 0 ? [{ type: "None" }] : [];
}

/**
 * The flagged lists (§3 `files`, `units`) that differ only in being absent on one side and an empty
 * list on the other: reflect.DeepEqual tells a nil slice from an empty one, so the flag is set
 * although no entry changed.
 */
function listsAbsentVsEmpty(from: RenderedConfig, to: RenderedConfig, diff: ConfigDiff): string[] {
  const differ = (a: unknown[] | null, b: unknown[] | null) =>
    (a === null) !== (b === null) && entries(a).length === 0 && entries(b).length === 0;
  return [
    diff.files && differ(from.files, to.files) ? "storage.files" : null,
    diff.units && differ(from.units, to.units) ? "systemd.units" : null,
  ].filter((l): l is string => l !== null);
}
const absentVsEmptyReason = (lists: string[]) =>
  `${lists.join(" and ")} went between absent and an empty list, which the MCO's comparison counts as a change (§3)`;

/**
 * Why the NDP action list came out empty (§4 edge cases): every matched policy entry had no actions
 * (for SSH: the status has no sshkey actions), or the flags are set while the change lists are empty
 * because only the order of files or units changed, or a list went between absent and empty.
 */
function emptyActionsWarning(
  from: RenderedConfig,
  to: RenderedConfig,
  diff: ConfigDiff,
  changes: Change[],
  options: PreviewOptions,
): string {
  const reasons: string[] = [];
  const matched = changes.filter((c) => c.actions.length === 0);
  const named = matched.filter((c) => c.kind !== "ssh").map((c) => c.name);
  if (named.length > 0)
    reasons.push(
      `the policy ${named.length === 1 ? "entry" : "entries"} for ${named.join(", ")} ${named.length === 1 ? "has" : "have"} no actions`,
    );
  if (matched.some((c) => c.kind === "ssh"))
    reasons.push(
      options.policySource === "cluster-status"
        ? "the policy status has no sshkey actions for the SSH key / password change"
        : "the sshkey policy has no actions for the SSH key / password change",
    );
  if (changes.length === 0) {
    const absentVsEmpty = listsAbsentVsEmpty(from, to, diff);
    const reordered = [diff.files ? "files" : null, diff.units ? "units" : null].filter(
      (l) => l !== null && !absentVsEmpty.includes(l === "files" ? "storage.files" : "systemd.units"),
    );
    if (reordered.length > 0) reasons.push(`only the order of ${reordered.join(" and ")} changed`);
    if (absentVsEmpty.length > 0) reasons.push(absentVsEmptyReason(absentVsEmpty));
    if (reasons.length === 0) reasons.push("only the order of files or units changed");
  }
  return `${reasons.join("; ") || "no policy adds an action"}: nothing runs on the node (§4 edge case)`;
}

function nodeDisruptionPolicyPath(
  from: RenderedConfig,
  to: RenderedConfig,
  diff: ConfigDiff,
  options: PreviewOptions,
  warnings: string[],
): Omit<Preview, "unreconcilable" | "warnings" | "imageMode" | "mcoRelease"> {
  const os = osChanges(diff);
  const changes: Change[] = [...os];
  const raw: Action[] = [];
  let rebootBy: string | null = os[0]?.name ?? null;

  for (const file of diff.fileChanges) {
    const policy = closestFilePolicy(options.policies.files, file.path);
    if (!policy) {
      changes.push({
        kind: "file",
        name: file.path,
        change: file.change,
        decidedBy: "no node disruption policy matches this path, so the MCO reboots (§4 step 5)",
        actions: [REBOOT],
      });
      rebootBy ??= file.path;
      raw.push(REBOOT);
    } else {
      const how = policy.path === file.path ? "exact path" : `directory ${policy.path}`;
      const from = options.policySource === "defaults" ? "MCO default policy" : "cluster policy";
      changes.push({
        kind: "file",
        name: file.path,
        change: file.change,
        decidedBy: `${from} for ${policy.path} (${how}): ${policy.actions.map(describeAction).join(", ") || "no actions"}`,
        actions: policy.actions,
      });
      raw.push(...policy.actions);
    }
  }
  for (const unit of diff.unitChanges) {
    const policy = options.policies.units.find((u) => u.name === unit.name);
    if (!policy) {
      changes.push({
        kind: "unit",
        name: unit.name,
        change: unit.change,
        decidedBy: "no unit policy names this unit, so the MCO reboots (§4 step 6)",
        actions: [REBOOT],
      });
      rebootBy ??= unit.name;
      raw.push(REBOOT);
    } else {
      changes.push({
        kind: "unit",
        name: unit.name,
        change: unit.change,
        decidedBy: `unit policy ${policy.name}: ${policy.actions.map(describeAction).join(", ") || "no actions"}`,
        actions: policy.actions,
      });
      raw.push(...policy.actions);
    }
  }
  if (diff.passwd) {
    const actions = options.policies.sshkey.actions;
    changes.push({
      kind: "ssh",
      name: "sshkey",
      change: "changed",
      decidedBy: `SSH key / password policy: ${actions.map(describeAction).join(", ") || "no actions"} (§4 step 7)`,
      actions,
    });
    raw.push(...actions);
  }

  let actions: Action[];
  if (os.length > 0) actions = [REBOOT];
  else if (!diff.files && !diff.units && !diff.passwd) actions = [{ type: "None" }];
  else actions = collapseActions(raw);
  if (rebootBy && actions[0]?.type === "Reboot" && os.length === 0) warnings.push(`${rebootBy} alone makes this a reboot`);
  if (actions.length === 0) warnings.push(emptyActionsWarning(from, to, diff, changes, options));
  if (diff.fileChanges.length > 1 && actions.length > 1)
    warnings.push("the MCO runs actions of different files in an unspecified order; they are listed here by path");

  let drain = false;
  let drainReason: string | null = null;
  if (actions.some((a) => a.type === "Reboot" || a.type === "Drain")) {
    drain = true;
    drainReason = actions.some((a) => a.type === "Reboot") ? "the node reboots" : "a policy asks for a drain";
  } else if (actions.some((a) => a.type === "Special")) {
    const unsafe = registriesUnsafe(from, to, options.inflated);
    drain = unsafe !== null;
    drainReason = unsafe ? `registries.conf change is not safe without a drain: ${unsafe}` : null;
    if (!unsafe) warnings.push("registries.conf change is safe (mirrors only added, digest-only): crio is reloaded without a drain");
  }
  return { path: "node-disruption-policy", actions, reboot: actions.some((a) => a.type === "Reboot"), drain, drainReason, changes };
}

function legacyPath(
  from: RenderedConfig,
  to: RenderedConfig,
  diff: ConfigDiff,
  warnings: string[],
  inflated?: InflatedSources,
): Omit<Preview, "unreconcilable" | "warnings" | "imageMode" | "mcoRelease"> {
  const changes: Change[] = osChanges(diff).map((c) => ({ ...c, decidedBy: c.decidedBy.replace("§4 step 3", "§10 legacy") }));
  for (const unit of diff.unitChanges)
    changes.push({
      kind: "unit",
      name: unit.name,
      change: unit.change,
      decidedBy: "legacy rules reboot on any unit change (§10 step 2)",
      actions: [REBOOT],
    });
  // §10 step 2 tests the `units` flag, and §3 compares the unit lists in order: a reordered list with
  // no unit changed on its own still sets the flag, and so still reboots.
  if (diff.units && diff.unitChanges.length === 0)
    changes.push({
      kind: "unit",
      name: "systemd.units",
      change: "changed",
      decidedBy: listsAbsentVsEmpty(from, to, diff).includes("systemd.units")
        ? `legacy rules reboot when the unit list differs, and ${absentVsEmptyReason(["systemd.units"])} (§10 step 2)`
        : "legacy rules reboot when the unit list differs, and only the order of units changed, which counts (§10 step 2, §3)",
      actions: [REBOOT],
    });
  if (diff.passwd) {
    changes.push({
      kind: "ssh",
      name: "sshkey",
      change: "changed",
      decidedBy: "legacy rules do not see SSH key or password changes (§10)",
      actions: [],
    });
    warnings.push("SSH key and password changes are applied without any action on the legacy path");
  }
  let action: "reboot" | "restart" | "reload" | "none" = changes.some((c) => c.actions[0]?.type === "Reboot") ? "reboot" : "none";
  const parent = (p: string) => path.posix.dirname(p);
  for (const file of diff.fileChanges) {
    const p = file.path;
    let decidedBy: string;
    let contributes: Action[] = [];
    if (p === "/etc/kubernetes/kubelet-ca.crt" || p === "/var/lib/kubelet/config.json") decidedBy = "legacy rule: no action for this file";
    else if (
      p === REGISTRIES_CONF ||
      p === "/etc/machine-config-daemon/no-reboot/containers-gpg.pub" ||
      p === "/etc/containers/policy.json" ||
      parent(p) === "/etc/containers/registries.d"
    ) {
      decidedBy = "legacy rule: reload crio";
      contributes = [RELOAD_CRIO];
      if (action === "none") action = "reload";
    } else if (p === "/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt") {
      decidedBy = "legacy rule: update-ca-trust and restart crio";
      contributes = [RESTART_CRIO];
      if (action !== "reboot") action = "restart";
    } else if (parent(p) === "/etc/nmstate/openshift") decidedBy = "legacy rule: no action for direct children of /etc/nmstate/openshift";
    else {
      decidedBy = "legacy rules reboot for any other file (§10)";
      contributes = [REBOOT];
      action = "reboot";
    }
    changes.push({ kind: "file", name: p, change: file.change, decidedBy, actions: contributes });
  }
  const actions: Action[] =
    action === "reboot" ? [REBOOT] : action === "restart" ? [RESTART_CRIO] : action === "reload" ? [RELOAD_CRIO] : [{ type: "None" }];
  let drain = action === "reboot";
  let drainReason: string | null = drain ? "the node reboots" : null;
  if ((action === "reload" || action === "restart") && diff.fileChanges.some((f) => f.path === REGISTRIES_CONF)) {
    const unsafe = registriesUnsafe(from, to, inflated);
    drain = unsafe !== null;
    drainReason = unsafe ? `registries.conf change is not safe without a drain: ${unsafe}` : null;
  }
  return { path: "legacy", actions, reboot: action === "reboot", drain, drainReason, changes };
}

/**
 * RequiresRebuild (§9): whether the build controller builds a new OS image for an image-mode pool.
 * It compares the rendered configs, so the OS image is the base one (spec.osImageURL restored from
 * the original-osimageurl annotation, as extractOCLImageFromMachineConfig does), not the image the
 * MCD embedded; kernel type as a raw string; the lists in order.
 */
export function requiresRebuild(from: RenderedConfig, to: RenderedConfig): boolean {
  return (
    from.baseOsImageURL !== to.baseOsImageURL ||
    from.kernelType !== to.kernelType ||
    JSON.stringify(from.extensions) !== JSON.stringify(to.extensions) ||
    JSON.stringify(from.kernelArguments) !== JSON.stringify(to.kernelArguments)
  );
}

/**
 * Image-mode facts (§9). A config is an image-mode pool's when it carries either annotation the MCD
 * writes (ocl-osimageurl or original-osimageurl). A new image is built on the first opt-in and when
 * requiresRebuild says so; any other change reuses the previous image (layer-only). Leaving image
 * mode builds nothing: the node goes back to the non-layered image.
 */
function imageModeOf(from: RenderedConfig, to: RenderedConfig, firstBoot: boolean): Preview["imageMode"] {
  if (!from.imageMode && !to.imageMode) return null;
  if (!to.imageMode)
    return {
      newImageBuilt: false,
      note: "leaving image mode: no OS image is built; the MCO reverts to the default OS image, which costs a second reboot (§9)",
    };
  if (!from.imageMode)
    return { newImageBuilt: true, note: "entering image mode: the pool's OS image is built for the opt-in before nodes update (§9)" };
  return requiresRebuild(from, to)
    ? {
        newImageBuilt: true,
        note: "image-mode pool: osImageURL, kernelType, extensions or kernel arguments changed, so a new OS image is built before nodes update (§9)",
      }
    : {
        newImageBuilt: false,
        note: `image-mode pool: the previous OS image is reused (layer-only build); files, units and SSH keys follow the ${firstBoot ? "legacy rules" : "node disruption policies"} (§9)`,
      };
}

/**
 * The storage overrides the daemon reads (update.go `update`): none on first boot, and none unless the
 * IrreconcilableMachineConfig gate is on at the cluster's release (TechPreview-only in 4.22, default
 * from 4.23; mcoRelease.ts `irreconcilableOverridesGate`).
 */
function overridesRead(options: PreviewOptions, warnings: string[]): StorageOverride[] {
  const overrides = options.storageOverrides ?? [];
  if (options.firstBoot) return [];
  const gate = irreconcilableOverridesGate(options.release, options.featureSet, overrides.length > 0, options.enabledFeatureGates);
  if (gate.enabled) return overrides;
  if (overrides.length)
    warnings.push(
      `irreconcilableValidationOverrides.storage [${overrides.join(", ")}] is not read: ${gate.basis}, so the MCO does not read the overrides`,
    );
  return [];
}

export function previewDisruption(from: RenderedConfig, to: RenderedConfig, options: PreviewOptions): Preview {
  const warnings: string[] = [];
  const mcoRelease = mcoReleaseFor(options.release);
  const unreconcilable = unreconcilableReasons(from, to, overridesRead(options, warnings));
  const imageMode = imageModeOf(from, to, options.firstBoot === true);
  if (unreconcilable.length > 0) {
    return {
      mcoRelease,
      path: options.firstBoot ? "legacy" : "node-disruption-policy",
      actions: [],
      reboot: false,
      drain: false,
      drainReason: null,
      unreconcilable,
      changes: [],
      warnings: [...warnings, "the MCO refuses this change; nodes would not update (§2)"],
      imageMode,
    };
  }
  const diff = diffConfigs(from, to);
  if (imageMode) warnings.push(imageMode.note);
  for (const f of entries(to.files)) {
    const decoded = decodeContents(f, options.inflated);
    if (decoded.note?.startsWith("remote source") && diff.fileChanges.some((c) => c.path === f.path))
      warnings.push(`${f.path}: ${decoded.note}; it counts as changed because its reference changed`);
  }
  const decided = options.firstBoot
    ? legacyPath(from, to, diff, warnings, options.inflated)
    : nodeDisruptionPolicyPath(from, to, diff, options, warnings);
  return { ...decided, unreconcilable: [], warnings, imageMode, mcoRelease };
}
