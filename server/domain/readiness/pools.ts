import { isPrefetchRequeue } from "../bundleProgress";
import { compareVersions, parseOcpVersion } from "../versions";
import { RELEASE_LABEL } from "../bundleManifest";
import {
  downgradeOnProblem,
  fail,
  list,
  pass,
  plural,
  POOL,
  problemOf,
  problemsOf,
  quote,
  unknown,
  warn,
  type Context,
  type Draft,
  type Evidence,
} from "./model";

/** Checks on MachineConfigPools and their nodes: degraded, paused, updating, image-mode builds, pinned images. */

export function poolsDegradedCheck(c: Context): Draft {
  const pools = Array.isArray(c.s.pools) ? c.s.pools : [];
  const problem = problemOf(c.s, "MachineConfigPools");
  if (pools.length === 0)
    return problem
      ? unknown(`Pool health is not known: ${problem}.`)
      : unknown("No MachineConfigPools were found, so pool health is not known.");
  const degraded = pools.filter((p) => p.degraded);
  const interrupted = pools.filter((p) => p.buildInterrupted);
  if (degraded.length || interrupted.length) {
    const parts = [
      ...degraded.map(
        (p) => `pool ${p.name} is degraded (${p.degradedMachineCount} of ${p.machineCount} nodes): ${quote(p.degradedMessage)}`,
      ),
      ...interrupted.map((p) => `pool ${p.name} has an interrupted OS image build (BuildInterrupted=True)`),
    ];
    return fail(
      `${parts.join("; ")}. Nodes of a degraded pool do not take new configuration, and the MCO reports Upgradeable=False (DegradedPool / InterruptedBuild), which blocks minor updates.`,
      [
        ...degraded.map((p) => POOL(p.name, "status.conditions[Degraded]")),
        ...interrupted.map((p) => POOL(p.name, "status.conditions[BuildInterrupted]")),
      ],
      "Find the failing node with `oc get mcp` and `oc get machineconfignodes`, fix the cause in its message (for an interrupted build, start a new build of the MachineOSConfig), and wait for the pool to recover.",
    );
  }
  return downgradeOnProblem(
    pass(
      `None of the ${plural(pools.length, "pool")} is degraded.`,
      pools.map((p) => POOL(p.name, "status.conditions[Degraded]")),
    ),
    problem,
  );
}

export function poolsPausedCheck(c: Context): Draft {
  const pools = Array.isArray(c.s.pools) ? c.s.pools : [];
  const problem = problemOf(c.s, "MachineConfigPools");
  if (pools.length === 0) return unknown(`Whether pools are paused is not known: ${problem ?? "no MachineConfigPools were found"}.`);
  const paused = pools.filter((p) => p.paused);
  if (paused.length === 0)
    return downgradeOnProblem(
      pass(
        "No pool is paused.",
        pools.map((p) => POOL(p.name, "spec.paused")),
      ),
      problem,
    );
  const master = paused.find((p) => p.name === "master");
  const others = paused.filter((p) => p.name !== "master").map((p) => p.name);
  const evidence = paused.map((p) => POOL(p.name, "spec.paused"));
  // The MCO waits for the required (master) pool before reporting the new version (pkg/operator/sync.go,
  // syncRequiredMachineConfigPools), so with it paused the update never completes: worse than a warning.
  if (master)
    return fail(
      `The master pool is paused${others.length ? `, and so ${others.length === 1 ? "is" : "are"} ${list(others)}` : ""}. ` +
        "Control-plane nodes will not take the new release's configuration, so the Machine Config Operator never finishes its part and the update stalls.",
      evidence,
      "Unpause the master pool (spec.paused: false) before updating; only worker pools may stay paused (e.g. for an EUS-to-EUS update).",
    );
  return warn(
    `${plural(paused.length, "pool")} ${paused.length === 1 ? "is" : "are"} paused (${list(others)}). Their nodes stay on the old configuration and OS until the pool is unpaused.`,
    evidence,
    "Unpause the pool(s) after the control plane update if you pause on purpose (EUS-to-EUS), or before updating otherwise.",
  );
}

export function poolsUpdatingCheck(c: Context): Draft {
  const pools = Array.isArray(c.s.pools) ? c.s.pools : [];
  const problem = problemOf(c.s, "MachineConfigPools");
  if (pools.length === 0) return unknown(`Whether pools are updating is not known: ${problem ?? "no MachineConfigPools were found"}.`);
  // A paused pool reports Updating too; the paused check covers it.
  const updating = pools.filter((p) => p.updating && !p.paused);
  if (updating.length === 0)
    return downgradeOnProblem(
      pass(
        "All pools are up to date.",
        pools.map((p) => POOL(p.name, "status.conditions[Updated]")),
      ),
      problem,
    );
  return warn(
    `${updating.map((p) => `pool ${p.name} is still rolling out a configuration (${p.updatedMachineCount} of ${p.machineCount} nodes updated)`).join("; ")}.`,
    updating.map((p) => POOL(p.name, "status.conditions[Updating]")),
    "Wait for the pools to finish (Updated=True) before starting the update, so nodes are not drained and rebooted twice.",
  );
}

export function imageModeCheck(c: Context): Draft {
  const problem = problemOf(c.s, "MachineOSConfigs");
  const pools = Array.isArray(c.s.imageMode) ? c.s.imageMode : [];
  if (pools.length === 0)
    return problem
      ? unknown(`Whether any pool uses image mode is not known: ${problem}.`)
      : pass("No pool uses image mode (on-cluster layering).");
  const ev = (p: { pool: string; build: string | null }): Evidence[] => [
    { kind: "MachineOSConfig", name: p.pool, field: "status.machineOSBuild" },
    ...(p.build ? [{ kind: "MachineOSBuild", name: p.build, field: "status.conditions" }] : []),
  ];
  const broken = pools.filter((p) => p.buildState === "failed" || p.buildState === "interrupted");
  if (broken.length)
    return fail(
      `${broken.map((p) => `the OS image build for pool ${p.pool} (MachineOSBuild ${p.build ?? "?"}) ${p.buildState === "failed" ? "failed" : "was interrupted"}`).join("; ")}. ` +
        "The update needs a new image built for each image-mode pool; its nodes do not move until a build succeeds.",
      broken.flatMap(ev),
      "Read the build job's log (the MachineOSBuild's builder job in openshift-machine-config-operator), fix the Containerfile, push secret or registry, and rebuild.",
    );
  const waiting = pools.filter((p) => p.buildState !== "succeeded");
  if (waiting.length)
    return warn(
      `${waiting.map((p) => (p.buildState === "building" ? `pool ${p.pool} is building an OS image (${p.build ?? "?"})` : `the state of pool ${p.pool}'s OS image build is not known`)).join("; ")}.`,
      waiting.flatMap(ev),
      "Let the build finish and the pool roll it out before starting the update.",
    );
  return pass(
    `Image-mode pools (${list(pools.map((p) => p.pool))}) have a successful build. The update builds a new image for each of them before their nodes update, so the push secret and registry must still work.`,
    pools.flatMap(ev),
  );
}

function bundleSetsFor(c: Context): Set<string> {
  const t = c.target.version;
  const sets = Array.isArray(c.s.pinnedImageSets) ? c.s.pinnedImageSets : [];
  return new Set(
    sets
      .filter((set) => {
        const release = parseOcpVersion(set?.labels?.[RELEASE_LABEL]);
        if (!release || !t) return false;
        return c.target.minorOnly ? release.major === t.major && release.minor === t.minor : compareVersions(release, t) === 0;
      })
      .map((set) => set.name),
  );
}

/**
 * Pinned images (docs/openshift.md §21.2, §21.3): the images of a bundle for the target must be on every node
 * before the update, or the nodes pull them during it (which a disconnected site cannot). Other
 * sets failing or still pulling are worth a look but do not stop the update.
 */
export function pinnedImagesCheck(c: Context): Draft {
  const problem = problemOf(c.s, "MachineConfigNodes");
  const nodes = Array.isArray(c.s.nodes) ? c.s.nodes : [];
  const bundle = bundleSetsFor(c);
  const failed: { node: string; set: string; error: string }[] = [];
  const pulling: { node: string; set: string; current: number; desired: number }[] = [];
  let entries = 0;
  for (const n of nodes) {
    for (const p of Array.isArray(n?.pinned) ? n.pinned : []) {
      entries++;
      const desired = p.desiredGeneration ?? 0;
      const current = p.currentGeneration ?? 0;
      if (current >= desired && desired > 0) continue;
      // The MCO's prefetch timeout is no failure: it starts the next attempt at once (isPrefetchRequeue).
      if (
        p.lastFailedGeneration !== null &&
        p.lastFailedGeneration !== undefined &&
        p.lastFailedGeneration >= desired &&
        p.error &&
        !isPrefetchRequeue(p.error)
      )
        failed.push({ node: n.name, set: p.set, error: p.error });
      else if (current < desired) pulling.push({ node: n.name, set: p.set, current, desired });
    }
  }
  const mcn = (node: string, set: string): Evidence => ({ kind: "MachineConfigNode", name: node, field: `status.pinnedImageSets[${set}]` });
  const nodesOf = (xs: { node: string }[]) => plural(new Set(xs.map((x) => x.node)).size, "node");
  const bundleFailed = failed.filter((f) => bundle.has(f.set));
  const bundlePulling = pulling.filter((p) => bundle.has(p.set));
  const describeFailed = (xs: typeof failed) => xs.map((f) => `${f.node}, set ${f.set}: ${quote(f.error)}`).join("; ");
  const describePulling = (xs: typeof pulling) =>
    xs.map((p) => `${p.node}, set ${p.set} (generation ${p.current} of ${p.desired})`).join("; ");
  const fixFailure =
    "Fix the cause on each node (for a disk-space error: the MCO wants twice the images' size plus 16 GiB of allocatable ephemeral storage, which deleting files does not raise, so grow the disk or remove images from the set); the MCO then retries.";
  if (bundleFailed.length)
    return fail(
      `Pre-loading the bundle for ${c.target.text} failed on ${nodesOf(bundleFailed)}: ${describeFailed(bundleFailed)}. ` +
        "Those nodes would have to pull the release images during the update, which a disconnected site cannot.",
      bundleFailed.map((f) => mcn(f.node, f.set)),
      fixFailure,
    );
  if (bundlePulling.length)
    return warn(
      `The bundle for ${c.target.text} is still being pulled on ${nodesOf(bundlePulling)}: ${describePulling(bundlePulling)}.`,
      bundlePulling.map((p) => mcn(p.node, p.set)),
      "Wait until every node reports the set's current generation equal to its desired generation.",
    );
  if (failed.length)
    return warn(
      `Pre-loading pinned images failed on ${nodesOf(failed)}: ${describeFailed(failed)}. ` +
        `${bundle.size ? `The bundle for ${c.target.text} is complete; these` : "These"} sets are not part of a bundle for ${c.target.text}, so they do not stop the update, but their images are not on those nodes.`,
      failed.map((f) => mcn(f.node, f.set)),
      fixFailure,
    );
  if (pulling.length)
    return warn(
      `Pinned images are still being pulled on ${nodesOf(pulling)}: ${describePulling(pulling)}.`,
      pulling.map((p) => mcn(p.node, p.set)),
      "Wait until every node reports the set's current generation equal to its desired generation.",
    );
  if (problem)
    // MachineConfigNode is not served before 4.19 outside TechPreview: nothing is pre-loaded that way.
    return problemsOf(c.s, "MachineConfigNodes").every((p) => p.kind === "not-available")
      ? pass(`Pinned-image progress is not reported by this cluster (${problem}).`)
      : unknown(`Pinned-image progress is not known: ${problem}.`);
  if (bundle.size) return pass(`The bundle for ${c.target.text} is pulled and pinned on every node.`);
  return pass(entries ? "Every node has pulled and pinned its pinned image sets." : "No pinned image sets are being pre-loaded.");
}
