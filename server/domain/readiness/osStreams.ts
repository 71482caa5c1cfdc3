import { runcOnRhel10Message } from "../disruption/osStreams";
import {
  builtinDefaultStream,
  isRhel10Stream,
  isScosVersion,
  mcoInstallVersion,
  runcCheckGate,
  type RuncCheckGate,
} from "../osImageStreams";
import type { PoolFacts } from "../snapshot";
import { fail, list, notAnUpdate, pass, POOL, unknown, type Context, type Draft, type Evidence } from "./model";

/**
 * A pool that will be on RHEL 10 at the target while CRI-O's default runtime in its configuration is
 * runc is refused by the target MCO's render controller (docs/openshift.md §25.1): release-4.23
 * render_controller.go `syncGeneratedMachineConfig` → `validateNoRuncOnRHEL10FromOSImageStream`
 * (the pool's stream set, pkg/osimagestream `IsRHEL10Stream`) or, where a MachineConfig overrides
 * the OS image, `validateNoRuncOnRHEL10FromOSImageURL` (the image's stream class label); runc as
 * `DetectRuncInMachineConfig` finds it. The error sets the pool's RenderDegraded condition
 * (`syncFailingStatus`): the pool gets no rendered configuration of the target release, so it is a
 * failing check, not a warning.
 */
const OS_IMAGE_STREAM = (field: string): Evidence => ({ kind: "OSImageStream", name: "cluster", field });
const RENDERED = (name: string): Evidence => ({ kind: "MachineConfig", name, field: "spec.config.storage.files[/etc/crio/crio.conf.d/*]" });
const STANDARD_POOLS = new Set(["master", "worker", "arbiter"]);

/** Whether the target's MCO refuses at all (`runcCheckGate`, docs/openshift.md §25). */
const gateAtTarget = (c: Context): RuncCheckGate => runcCheckGate(c.target.version, c.s.featureGate?.featureSet ?? null, c.s.topology);

type PoolJudgement = { pool: string; stream: string | null; verdict: "refused" | "renders" | "unknown"; why: string; evidence: Evidence[] };

function judgePool(
  c: Context,
  p: PoolFacts,
  worker: PoolFacts | undefined,
  defaultAtTarget: { name: string; basis: string } | { unknown: string },
): PoolJudgement {
  const own = p.osImageStream?.spec ?? null;
  const inherited = !own && !STANDARD_POOLS.has(p.name) ? (worker?.osImageStream?.spec ?? null) : null;
  const stream = own ?? inherited ?? ("name" in defaultAtTarget ? defaultAtTarget.name : null);
  const streamWhy = own
    ? `its spec.osImageStream names ${own}`
    : inherited
      ? `it inherits ${inherited} from the worker pool`
      : "name" in defaultAtTarget
        ? `it takes the default stream, ${defaultAtTarget.name} (${defaultAtTarget.basis})`
        : null;
  const evidence: Evidence[] = [POOL(p.name, "spec.osImageStream")];
  const crio = p.renderedCrio;
  if (!crio)
    return {
      pool: p.name,
      stream,
      verdict: "unknown",
      why: `its rendered MachineConfig was not read (${c.s.renderedConfigsUnread ?? "not in this snapshot"})`,
      evidence,
    };
  evidence.push(RENDERED(crio.rendered));
  if (crio.error)
    return { pool: p.name, stream, verdict: "unknown", why: `its CRI-O drop-ins could not be judged: ${crio.error}`, evidence };
  const runc = crio.defaultRuntime === "runc";
  if (crio.osImageOverride) {
    // validateNoRuncOnRHEL10FromOSImageURL: runc first, then the image's stream class label.
    if (!runc)
      return {
        pool: p.name,
        stream,
        verdict: "renders",
        why: `its OS image is overridden by MachineConfig ${crio.osImageOverride}, and CRI-O's default runtime is not runc`,
        evidence,
      };
    return {
      pool: p.name,
      stream,
      verdict: "unknown",
      why: `its OS image is overridden by MachineConfig ${crio.osImageOverride} and CRI-O's default runtime is runc; the MCO then asks the image's stream class label (io.openshift.os.streamclass), which Fleetskew does not read`,
      evidence: [...evidence, { kind: "MachineConfig", name: crio.osImageOverride, field: "spec.osImageURL" }],
    };
  }
  if (!streamWhy || !stream)
    return {
      pool: p.name,
      stream,
      verdict: "unknown",
      why: `its stream at the target cannot be told: ${"unknown" in defaultAtTarget ? defaultAtTarget.unknown : "no default"}`,
      evidence,
    };
  if (!isRhel10Stream(stream)) return { pool: p.name, stream, verdict: "renders", why: `${streamWhy}, not a RHEL 10 stream`, evidence };
  if (!runc)
    return {
      pool: p.name,
      stream,
      verdict: "renders",
      why: `${streamWhy}; CRI-O's default runtime is ${crio.defaultRuntime ?? "not set by any drop-in"}, not runc`,
      evidence,
    };
  return { pool: p.name, stream, verdict: "refused", why: `${streamWhy}; ${runcOnRhel10Message(p.name)}`, evidence };
}

/** The default stream pools without their own get at the target: OSImageStream's, kept across updates, else the target MCO's built-in one. */
function defaultStreamAtTarget(c: Context): { name: string; basis: string } | { unknown: string } {
  const o = c.s.osImageStream;
  if (!o) return { unknown: "OSImageStream was not read in this snapshot" };
  if (o.status === "unreadable") return { unknown: `OSImageStream/cluster could not be read: ${o.reason}` };
  if (o.status === "ok" && (o.specDefault || o.statusDefault))
    return {
      name: (o.specDefault || o.statusDefault)!,
      basis: `OSImageStream/cluster ${o.specDefault ? "spec" : "status"}.defaultStream, which the MCO keeps across updates`,
    };
  const install = mcoInstallVersion(c.s.version?.history, c.s.version?.desired);
  const name = builtinDefaultStream(install, c.target.version, isScosVersion(c.currentText));
  if (!name) return { unknown: "the MCO's built-in default stream depends on the install version, which is not known" };
  return {
    name,
    basis: `no OSImageStream yet: the target's MCO creates it with its built-in default (GetBuiltinDefaultStreamName) for ${install ? `the install version ${install.major}.${install.minor}` : `its own release`}`,
  };
}

export function osStreamRuncCheck(c: Context): Draft {
  const notUpdate = notAnUpdate(c);
  if (notUpdate) return unknown(`Not assessed: ${notUpdate}.`);
  const gate = gateAtTarget(c);
  if ("unknown" in gate)
    return unknown(`Whether the target's MCO uses OS image streams is not known: ${gate.unknown}.`, [
      { kind: "FeatureGate", name: "cluster", field: "spec.featureSet" },
    ]);
  if (!gate.on) return pass(`The MCO at ${c.target.text} does not refuse RHEL 10 pools that use runc: ${gate.basis}.`);
  const pools = Array.isArray(c.s.pools) ? c.s.pools.filter((p) => p && typeof p.name === "string") : [];
  if (!pools.length) return unknown("The cluster's MachineConfigPools were not read.");
  if (pools.some((p) => p.osImageStream === undefined))
    return unknown("This snapshot was taken before Fleetskew read OS image streams; the next sweep has them.");
  const defaultAtTarget = defaultStreamAtTarget(c);
  const worker = pools.find((p) => p.name === "worker");
  const judged = pools.map((p) => judgePool(c, p, worker, defaultAtTarget));
  const refused = judged.filter((j) => j.verdict === "refused");
  const unsure = judged.filter((j) => j.verdict === "unknown");
  const evidence = [...judged.flatMap((j) => j.evidence), OS_IMAGE_STREAM("status.defaultStream")];
  const say = (js: PoolJudgement[]) => js.map((j) => `pool ${j.pool}: ${j.why}`).join(". ");
  if (refused.length)
    return fail(
      `At ${c.target.text} (${gate.basis}) the MCO's render controller refuses ${refused.length === 1 ? "a pool" : `${refused.length} pools`} (${list(refused.map((j) => j.pool))}): ${say(refused)}. The pool is marked RenderDegraded and gets no configuration of the new release.${unsure.length ? ` Not known for the rest: ${say(unsure)}.` : ""}`,
      evidence,
      'Before updating, move each named pool to crun: delete or change the ContainerRuntimeConfig that sets defaultRuntime: runc and any MachineConfig with default_runtime = "runc" under /etc/crio/crio.conf.d/, or keep the pool on rhel-9 (spec.osImageStream.name).',
    );
  if (unsure.length)
    return unknown(`At ${c.target.text} (${gate.basis}) whether the MCO renders every pool is not known: ${say(unsure)}.`, evidence);
  return pass(`At ${c.target.text} (${gate.basis}) no pool is refused: ${say(judged)}.`, evidence);
}
