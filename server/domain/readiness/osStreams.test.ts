import { describe, expect, it } from "vitest";
import { builtinDefaultStream, clusterDefaultStream, effectivePoolStreams, mcoInstallVersion } from "../osImageStreams";
import type { ClusterSnapshot, PoolFacts, RenderedCrioFacts, VersionHistoryEntry } from "../snapshot";
import { healthyCluster, pool, versionFacts } from "../testing/snapshots";
import { parseOcpVersion } from "../versions";
import { run } from "./testing";

/**
 * The RHEL 10 runc readiness check and the stream rules behind it, after openshift/machine-config-operator
 * release-4.23 (d20efd9b9bdb): pkg/osimagestream streams.go `GetBuiltinDefaultStreamName`,
 * clusterversion.go `GetInstallVersion`, osimagestream.go `getDefaultStreamSet`,
 * pkg/controller/common/helpers.go `GetEffectiveOSImageStreamName`, `DetectRuncInMachineConfig`,
 * render_controller.go `validateNoRuncOnRHEL10FromOSImageStream` / `…FromOSImageURL`.
 */
const crio = (more: Partial<RenderedCrioFacts> = {}): RenderedCrioFacts => ({
  rendered: "rendered-x-1",
  defaultRuntime: "crun",
  error: null,
  osImageOverride: null,
  ...more,
});
const streamPool = (name: string, spec: string | null, c: RenderedCrioFacts | null = crio({ rendered: `rendered-${name}-1` })): PoolFacts =>
  pool(name, { osImageStream: { spec, status: spec, effective: null }, renderedCrio: c });

const installedAt = (...versions: [string, string][]): VersionHistoryEntry[] =>
  // Newest first, as ClusterVersion lists them.
  versions.map(([version, at]) => ({ version, state: "Completed", startedTime: at, completionTime: at })).reverse();

function cluster423(pools: PoolFacts[], more: Partial<ClusterSnapshot> = {}): ClusterSnapshot {
  return healthyCluster({
    version: versionFacts(installedAt(["4.22.3", "2026-01-01T00:00:00Z"], ["4.23.1", "2026-06-01T00:00:00Z"])),
    featureGate: { featureSet: "Default", version: "4.23.1", enabled: ["OSStreams"] },
    osImageStream: {
      status: "ok",
      specDefault: null,
      statusDefault: "rhel-9",
      available: [
        { name: "rhel-10", osImage: "quay.io/x@sha256:10" },
        { name: "rhel-9", osImage: "quay.io/x@sha256:9" },
      ],
    },
    renderedConfigsUnread: null,
    pools,
    ...more,
  });
}

describe("stream rules (pkg/osimagestream)", () => {
  it("GetBuiltinDefaultStreamName: 4.x → rhel-9, 5 → rhel-10, by install version before the build's own, SCOS → centos-10", () => {
    expect(builtinDefaultStream(parseOcpVersion("4.12.7"), parseOcpVersion("5.0.1"), false)).toBe("rhel-9");
    expect(builtinDefaultStream(null, parseOcpVersion("5.0.1"), false)).toBe("rhel-10");
    expect(builtinDefaultStream(parseOcpVersion("5.0.0"), parseOcpVersion("5.1.0"), false)).toBe("rhel-10");
    expect(builtinDefaultStream(parseOcpVersion("4.19.0"), null, true)).toBe("centos-10");
    expect(builtinDefaultStream(null, null, false)).toBeNull();
  });

  it("GetInstallVersion: the earliest Completed entry by completion time, else the desired version", () => {
    const h = installedAt(["4.12.7", "2023-03-01T00:00:00Z"], ["4.19.10", "2025-09-01T00:00:00Z"]);
    expect(mcoInstallVersion(h, "4.19.10")).toMatchObject({ major: 4, minor: 12 });
    expect(mcoInstallVersion([{ version: "4.23.0", state: "Partial", startedTime: null, completionTime: null }], "5.0.0")).toMatchObject({
      major: 5,
    });
  });

  it("getDefaultStreamSet keeps spec.defaultStream, else the existing status.defaultStream; no OSImageStream → built-in", () => {
    const ok = (specDefault: string | null, statusDefault: string | null) => ({
      status: "ok" as const,
      specDefault,
      statusDefault,
      available: [],
    });
    expect(clusterDefaultStream(ok("rhel-10", "rhel-9"), "rhel-9")).toEqual({ name: "rhel-10", source: "cluster-default" });
    expect(clusterDefaultStream(ok(null, "rhel-9"), "rhel-10")).toEqual({ name: "rhel-9", source: "cluster-default" });
    expect(clusterDefaultStream({ status: "not-served" }, "rhel-9")).toEqual({ name: "rhel-9", source: "builtin" });
    expect(clusterDefaultStream({ status: "unreadable", reason: "403" }, "rhel-9")).toHaveProperty("unknown");
  });

  it("GetEffectiveOSImageStreamName: own stream, custom pools inherit the worker's, standard pools take the default", () => {
    const streams = effectivePoolStreams(
      [
        { name: "master", spec: null },
        { name: "worker", spec: "rhel-10" },
        { name: "infra", spec: null },
        { name: "gpu", spec: "rhel-9" },
      ],
      { name: "rhel-9", source: "cluster-default" },
    );
    expect(streams.get("master")).toEqual({ name: "rhel-9", source: "cluster-default" });
    expect(streams.get("infra")).toEqual({ name: "rhel-10", source: "worker" });
    expect(streams.get("gpu")).toEqual({ name: "rhel-9", source: "pool" });
  });
});

describe("os-stream-runc readiness (validateNoRuncOnRHEL10FromOSImageStream at the target)", () => {
  it("fails, in the render controller's words, for a RHEL 10 pool whose CRI-O default runtime is runc", () => {
    const s = cluster423([
      streamPool("master", null),
      streamPool("worker", "rhel-10", crio({ rendered: "rendered-worker-9", defaultRuntime: "runc" })),
    ]);
    const c = run(s, "4.23.4", "os-stream-runc");
    expect(c.status).toBe("fail");
    expect(c.detail).toContain(
      "MachineConfigPool worker targets a RHEL 10 OS image where runc is not available. To unblock, migrate to crun by removing any ContainerRuntimeConfig that sets defaultRuntime to runc",
    );
    expect(c.evidence).toContainEqual(expect.objectContaining({ kind: "MachineConfig", name: "rendered-worker-9" }));
  });

  it("a custom pool inherits the worker's RHEL 10 stream and is refused too (GetEffectiveOSImageStreamName)", () => {
    const s = cluster423([streamPool("worker", "rhel-10"), streamPool("infra", null, crio({ defaultRuntime: "runc" }))]);
    const c = run(s, "4.23.4", "os-stream-runc");
    expect(c.status).toBe("fail");
    expect(c.detail).toContain("pool infra: it inherits rhel-10 from the worker pool");
  });

  it("passes when the RHEL 10 pool runs crun and the rhel-9 pool runs runc (the check is only for RHEL 10)", () => {
    const s = cluster423([streamPool("master", null, crio({ defaultRuntime: "runc" })), streamPool("worker", "rhel-10")]);
    expect(run(s, "4.23.4", "os-stream-runc").status).toBe("pass");
  });

  it("the cluster's default stream counts: spec.defaultStream rhel-10 puts pools without their own on RHEL 10", () => {
    const s = cluster423([streamPool("master", null, crio({ defaultRuntime: "runc" }))]);
    s.osImageStream = { status: "ok", specDefault: "rhel-10", statusDefault: "rhel-10", available: [] };
    const c = run(s, "4.23.4", "os-stream-runc");
    expect(c.status).toBe("fail");
    expect(c.detail).toContain("it takes the default stream, rhel-10");
  });

  it("a 4.22 Default cluster going to 4.23: no OSImageStream yet, the built-in default for a 4.x install is rhel-9", () => {
    const s = cluster423([streamPool("worker", null, crio({ defaultRuntime: "runc" }))], {
      version: versionFacts(installedAt(["4.22.3", "2026-01-01T00:00:00Z"])),
      osImageStream: { status: "not-served" },
      featureGate: { featureSet: "Default", version: "4.22.3", enabled: [] },
    });
    const c = run(s, "4.23.1", "os-stream-runc");
    expect(c.status).toBe("pass");
    expect(c.detail).toContain("GetBuiltinDefaultStreamName");
  });

  it("respects the gate and the release: the 4.22 MCO has no runc check, even in TechPreview; CustomNoUpgrade and HyperShift Default", () => {
    const refused = [streamPool("worker", "rhel-10", crio({ defaultRuntime: "runc" }))];
    const on = (featureSet: string | null, more: Partial<ClusterSnapshot> = {}) =>
      cluster423(refused, { featureGate: featureSet ? { featureSet, version: "4.23.1", enabled: [] } : null, ...more });
    const at421 = { version: versionFacts(installedAt(["4.21.5", "2025-12-01T00:00:00Z"])) };
    expect(run(on("TechPreviewNoUpgrade", at421), "4.22.9", "os-stream-runc").status).toBe("pass");
    expect(run(on("TechPreviewNoUpgrade", at421), "4.23.0", "os-stream-runc").status).toBe("fail");
    expect(run(on("Default"), "5.0.1", "os-stream-runc").status).toBe("fail");
    expect(run(on(null), "4.23.4", "os-stream-runc").status).toBe("fail");
    expect(run(on("CustomNoUpgrade"), "4.23.4", "os-stream-runc").status).toBe("unknown");
    expect(run(on("Default", { topology: "External" }), "4.23.4", "os-stream-runc").status).toBe("pass");
    expect(run(on("TechPreviewNoUpgrade", { topology: "External" }), "4.23.4", "os-stream-runc").status).toBe("fail");
  });

  it("5.0 is not 4.23: openshift/api release-5.0 turns OSStreams on for HyperShift in Default, so the runc check runs there", () => {
    const refused = [streamPool("worker", "rhel-10", crio({ defaultRuntime: "runc" }))];
    const hosted = cluster423(refused, { featureGate: { featureSet: "Default", version: "4.23.1", enabled: [] }, topology: "External" });
    expect(run(hosted, "4.23.4", "os-stream-runc").status).toBe("pass");
    const at50 = run(hosted, "5.0.1", "os-stream-runc");
    expect(at50.status).toBe("fail");
    expect(at50.detail).toContain("release-5.0");
  });

  it("unknown, never a pass, when the rendered configuration or OSImageStream could not be read", () => {
    const unread = cluster423([streamPool("worker", "rhel-10", null)], {
      renderedConfigsUnread: "MachineConfigs could not be listed: forbidden",
    });
    const c = run(unread, "4.23.4", "os-stream-runc");
    expect(c.status).toBe("unknown");
    expect(c.detail).toContain("forbidden");
    const forbidden = cluster423([streamPool("worker", null)], {
      osImageStream: { status: "unreadable", reason: "osimagestreams is forbidden" },
    });
    expect(run(forbidden, "4.23.4", "os-stream-runc").status).toBe("unknown");
    const old = healthyCluster({ version: versionFacts(installedAt(["4.23.1", "2026-06-01T00:00:00Z"])) });
    expect(run(old, "4.23.4", "os-stream-runc").status).toBe("unknown");
  });

  it("an overridden OS image with runc is unknown (validateNoRuncOnRHEL10FromOSImageURL reads the image's stream class label)", () => {
    const s = cluster423([streamPool("worker", null, crio({ defaultRuntime: "runc", osImageOverride: "99-worker-custom-os" }))]);
    const c = run(s, "4.23.4", "os-stream-runc");
    expect(c.status).toBe("unknown");
    expect(c.detail).toContain("io.openshift.os.streamclass");
    // Without runc the image's class does not matter: the MCO checks runc first.
    const crun = cluster423([streamPool("worker", "rhel-10", crio({ osImageOverride: "99-worker-custom-os" }))]);
    expect(run(crun, "4.23.4", "os-stream-runc").status).toBe("pass");
  });
});
