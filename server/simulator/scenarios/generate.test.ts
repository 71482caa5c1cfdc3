import { describe, expect, it } from "vitest";
import { checkBootImageSkew, installVersion } from "../../domain/skew";
import { generatedObjects, generateFleet, paramsFor } from "./generate";

const find = (objects: ReturnType<typeof generatedObjects>, kind: string, name?: string) =>
  objects.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name)) as never as {
    metadata: Record<string, unknown>;
    spec: Record<string, any>;
    status: Record<string, any>;
    data: Record<string, string>;
  };

describe("generateFleet", () => {
  it("is deterministic for a seed and different for another", () => {
    const a = generateFleet(30, 7);
    const b = generateFleet(30, 7);
    expect(a.map((s) => s.name)).toEqual(b.map((s) => s.name));
    expect(JSON.stringify(a[10]!.objects())).toBe(JSON.stringify(b[10]!.objects()));
    expect(generateFleet(30, 8).map((s) => s.name)).not.toEqual(a.map((s) => s.name));
  });

  it("always starts with the reference cluster and its 4.22 projection, with unique names", () => {
    const fleet = generateFleet(200, 3);
    expect(fleet.slice(0, 2).map((s) => [s.name, s.ocpVersion])).toEqual([
      ["prod-east", "4.19.10"],
      ["prod-east-422", "4.22.3"],
    ]);
    expect(new Set(fleet.map((s) => s.name)).size).toBe(200);
  });

  it("covers the variety the console must handle", () => {
    const params = Array.from({ length: 400 }, (_, i) => paramsFor(i, 1));
    expect(new Set(params.map((p) => p.platform))).toEqual(new Set(["AWS", "GCP", "Azure", "VSphere", "BareMetal", "None"]));
    expect(new Set(params.map((p) => p.topology))).toEqual(new Set(["SNO", "compact", "standard"]));
    expect(new Set(params.map((p) => p.managedBootImages))).toEqual(new Set(["unset", "All", "Partial", "None", "empty-list"]));
    expect(params.some((p) => p.windowsMachineSet)).toBe(true);
    expect(params.some((p) => p.customAmi)).toBe(true);
    expect(params.some((p) => p.azureStackHub)).toBe(true);
    expect(new Set(params.map((p) => p.pinned))).toEqual(new Set(["none", "progressing", "done", "failed"]));
    expect(new Set(params.map((p) => p.enforcementSpec?.mode ?? "unset"))).toEqual(new Set(["unset", "None", "Manual"]));
    const installMinors = params.map((p) => Number(p.installVersion.split(".")[1]));
    const currentMinors = params.map((p) => Number(p.history[0]!.split(".")[1]));
    expect([Math.min(...installMinors), Math.max(...installMinors)]).toEqual([10, 20]);
    expect([Math.min(...currentMinors), Math.max(...currentMinors)]).toEqual([14, 22]);
    expect(params.some((p) => p.imageMode)).toBe(true);
    // Provisioning only on multi-node bare metal, both on and off the legacy provisioning path.
    expect(new Set(params.filter((p) => p.platform === "BareMetal" && p.topology !== "SNO").map((p) => p.provisioning))).toEqual(
      new Set(["os-download-url", "no-os-download-url"]),
    );
    expect(params.filter((p) => p.platform !== "BareMetal" || p.topology === "SNO").every((p) => p.provisioning === null)).toBe(true);
    expect(params.filter((p) => p.faults).length).toBeGreaterThan(5);
  });
});

describe("generated clusters follow the MCO's rules", () => {
  const all = Array.from({ length: 400 }, (_, i) => paramsFor(i, 1));

  it("record the install version in ClusterVersion history the MCO's way", () => {
    for (const p of all.slice(0, 40)) {
      const cv = find(generatedObjects(p), "ClusterVersion");
      expect(installVersion(cv.status.history)).toBe(p.installVersion);
      expect(cv.status.history[0].version).toBe(p.history[0]);
    }
  });

  it("block upgrades on 4.22 exactly when the recorded boot image is below the limit, with the MCO's message", () => {
    const on422 = all.filter((p) => p.history[0]!.startsWith("4.22."));
    expect(on422.length).toBeGreaterThan(10);
    let blocked = 0;
    for (const p of on422) {
      const objects = generatedObjects(p);
      const status = find(objects, "MachineConfiguration").status.bootImageSkewEnforcementStatus;
      const upgradeable = find(objects, "ClusterOperator").status.conditions.find((c: { type: string }) => c.type === "Upgradeable");
      const recorded = status.automatic ?? status.manual;
      const verdict =
        status.mode === "None" ? null : checkBootImageSkew(recorded, { ocpVersion: "4.13.0", rhelVersion: "9.2" }, p.history[0]!);
      if (verdict?.outcome === "below-limit") {
        blocked++;
        expect(upgradeable).toMatchObject({ status: "False", reason: "ClusterBootImageSkewError", message: verdict.message });
      } else expect(upgradeable).toMatchObject({ status: "True", reason: "AsExpected" });
      if (p.topology === "SNO" && !p.enforcementSpec) expect(status.mode).toBe("None");
      // docs/openshift.md §16.1 rule 2: bare metal is enforced only on the legacy provisioning path.
      if (p.platform === "BareMetal" && !p.enforcementSpec) {
        const url = (find(objects, "Provisioning", "provisioning-configuration")?.spec ?? {}).provisioningOSDownloadURL;
        expect(!!url).toBe(p.provisioning === "os-download-url");
        if (!url) expect(status.mode).toBe("None");
        else if (p.topology !== "SNO") expect(status.mode).toBe("Manual");
      }
    }
    expect(blocked).toBeGreaterThan(0);
  });

  it("keep skew fields off clusters older than 4.22", () => {
    const old = all.find((p) => Number(p.history[0]!.split(".")[1]) < 22)!;
    const mc = find(generatedObjects(old), "MachineConfiguration");
    expect(mc.status.bootImageSkewEnforcementStatus).toBeUndefined();
    expect(mc.spec.bootImageSkewEnforcement).toBeUndefined();
  });

  it("leave unmanaged MachineSets on the install image and move managed ones to the stream's", () => {
    const p = all.find(
      (x) => x.platform === "AWS" && x.topology === "standard" && x.managedBootImages === "Partial" && !x.ownedMachineSet,
    )!;
    const objects = generatedObjects(p);
    const stream = JSON.parse(find(objects, "ConfigMap", "coreos-bootimages").data.stream!);
    const streamAmi = stream.architectures.x86_64.images.aws.regions[p.region].image;
    const amis = objects
      .filter((o) => o.kind === "MachineSet")
      .map((ms) => [
        ms.metadata.labels?.["bootimages.example.com/managed"] === "true",
        (ms.spec as any).template.spec.providerSpec.value.ami.id,
      ]);
    expect(amis.filter(([managed]) => managed).every(([, ami]) => ami === streamAmi)).toBe(true);
    expect(amis.filter(([managed]) => !managed).every(([, ami]) => ami !== streamAmi)).toBe(true);
  });

  it("fail pinned-image pre-loads on a node without the disk space the MCO requires", () => {
    const p = all.find((x) => x.pinned === "failed" && x.topology === "standard")!;
    const objects = generatedObjects(p);
    const failed = objects
      .filter((o) => o.kind === "MachineConfigNode")
      .find((m) => (m.status as any).pinnedImageSets?.[0]?.lastFailedGenerationError);
    expect((failed!.status as any).pinnedImageSets[0].lastFailedGenerationError).toBe("storage available is less than minimum required");
    const node = objects.find((o) => o.kind === "Node" && o.metadata.name === failed!.metadata.name)!;
    expect(Number((node.status as any).allocatable["ephemeral-storage"])).toBeLessThan(16 * 1024 ** 3 * 2);
  });
});
