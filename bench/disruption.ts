/** Time to preview a 1,000-file MachineConfig change (read both configs, diff, decide). Target: under 50 ms. */
import { previewDisruption } from "../server/domain/disruption/engine";
import { readMachineConfig } from "../server/domain/disruption/machineConfig";
import { mergeClusterPolicies } from "../server/domain/disruption/policy";
import { machineConfigDoc } from "../server/domain/disruption/testing";

const FILES = 1_000;
const TARGET_MS = 50;
const dirs = [
  "/etc/containers/registries.d",
  "/etc/crio/policies",
  "/etc/nmstate/openshift",
  "/etc/app/conf.d",
  "/etc/kubernetes/credential-providers",
];
const files = (version: number) =>
  Object.fromEntries(
    Array.from({ length: FILES }, (_, i) => [
      `${dirs[i % dirs.length]}/file-${i}.conf`,
      `setting-${i} = ${i % 3 === 0 ? version : 0}\n`.repeat(20),
    ]),
  );
const before = machineConfigDoc({ files: files(1) });
const after = machineConfigDoc({ files: files(2) }); // a third of the files change
const policy = mergeClusterPolicies({
  files: [{ path: "/etc/app/conf.d", actions: [{ type: "Restart", restart: { serviceName: "app.service" } }] }],
});

const timings: number[] = [];
let result;
for (let i = 0; i < 30; i++) {
  const t = performance.now();
  result = previewDisruption(readMachineConfig(before), readMachineConfig(after), {
    policies: policy,
    policySource: "spec-merged-with-defaults",
  });
  timings.push(performance.now() - t);
}
const sorted = timings.slice(5).sort((a, b) => a - b); // the first runs warm the JIT
const p50 = sorted[Math.floor(sorted.length / 2)]!;
console.log(`disruption preview: ${FILES} files, ${result!.changes.length} changed, ${result!.actions.length} actions`);
console.log(
  `  p50 ${p50.toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms (target < ${TARGET_MS} ms) ${p50 < TARGET_MS ? "OK" : "OVER"}`,
);
