import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { previewDisruption } from "./engine";
import { readMachineConfig } from "./machineConfig";
import { DEFAULT_POLICIES } from "./policy";
import { RegistriesConfError } from "./registries";
import { machineConfigDoc, rendered, type ConfigShape } from "./testing";

const defaults = { policies: DEFAULT_POLICIES, policySource: "defaults" as const };
// Paths from the policy table and their neighbours, so matches and near-misses both occur.
const path = fc.constantFrom(
  "/etc/containers/policy.json",
  "/etc/containers/registries.d/a.yaml",
  "/etc/crio/policies/x.json",
  "/etc/nmstate/openshift/n.yml",
  "/var/lib/kubelet/config.json",
  "/etc/kubernetes/credential-providers/p.yaml",
  "/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt",
  "/etc/motd",
  "/etc/sysctl.d/99.conf",
  "/etc/containers/registries.conf.d/x.conf",
);
const files = fc.dictionary(path, fc.string({ maxLength: 20 }), { maxKeys: 6 });
const shape = fc.record({
  files,
  kernelArguments: fc.array(fc.constantFrom("nosmt", "quiet", "a=b"), { maxLength: 2 }),
  // Unique names: Ignition refuses a config naming a unit twice (ignitionDuplicates.ts).
  units: fc.uniqueArray(
    fc.record({ name: fc.constantFrom("a.service", "iri-registry.service", "b.timer"), contents: fc.string({ maxLength: 10 }) }),
    { maxLength: 2, selector: (u) => u.name },
  ),
}) as fc.Arbitrary<ConfigShape>;

describe("disruption engine properties", () => {
  it("never throws on any MachineConfig-shaped input, only refuses unreadable registries.conf with its own error", () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), (a, b) => {
        const wrap = (v: unknown) => ({ apiVersion: "machineconfiguration.openshift.io/v1", kind: "MachineConfig", metadata: {}, spec: v });
        let from, to;
        try {
          from = readMachineConfig(wrap(a));
          to = readMachineConfig(wrap(b));
        } catch {
          return; // rejected as not a MachineConfig: a message, not a crash
        }
        try {
          previewDisruption(from, to, defaults);
        } catch (error) {
          expect(error).toBeInstanceOf(RegistriesConfError);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("adding a reboot-causing change never yields a result without Reboot", () => {
    fc.assert(
      fc.property(
        shape,
        shape,
        fc.constantFrom<ConfigShape>({ kernelArguments: ["extra=1"] }, { extensions: ["usbguard"] }),
        (a, b, os) => {
          const to = { ...b, ...os, kernelArguments: [...(b.kernelArguments ?? []), ...(os.kernelArguments ?? [])] };
          expect(previewDisruption(rendered(a), rendered(to), defaults).actions).toEqual([{ type: "Reboot" }]);
        },
      ),
      { numRuns: 200 },
    );
    fc.assert(
      fc.property(shape, fc.string({ minLength: 1, maxLength: 10 }), (a, body) => {
        const to = { ...a, files: { ...a.files, "/etc/unmatched/by/any/policy.conf": body } };
        expect(previewDisruption(rendered(a), rendered(to), defaults).reboot).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it("does not depend on the order of files in the input, except for the action order the MCO leaves unspecified", () => {
    fc.assert(
      fc.property(shape, shape, (a, b) => {
        const forward = previewDisruption(rendered(a), rendered(b), defaults);
        const reversedDoc = machineConfigDoc(b);
        reversedDoc.spec.config.storage.files.reverse();
        const from = rendered(a);
        const reversed = previewDisruption(from, readMachineConfig(reversedDoc), defaults);
        const sortActions = (x: typeof forward) => x.actions.map((y) => JSON.stringify(y)).sort();
        // The file list order itself counts as a change (§3), so only compare when a real change exists.
        if (forward.changes.length > 0) {
          expect(sortActions(reversed)).toEqual(sortActions(forward));
          expect([reversed.reboot, reversed.drain]).toEqual([forward.reboot, forward.drain]);
        }
      }),
      { numRuns: 200 },
    );
  });
});
