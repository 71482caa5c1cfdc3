import { describe, expect, it } from "vitest";
import { mergeMachineConfigs } from "./render";

const mc = (name: string, files: unknown[]) => ({
  metadata: { name, labels: { "machineconfiguration.openshift.io/role": "worker" } },
  spec: { config: { ignition: { version: "3.5.0" }, storage: { files } } },
});

describe("helpers.go MergeMachineConfigs → ignitionMergeSetFilesDefaultCompression: the simulated render controller", () => {
  it("a later uncompressed file clears an earlier gzip; a later gzip keeps its own", () => {
    const gzip = mc("00-worker", [{ path: "/etc/a", contents: { source: "data:;base64,H4sI", compression: "gzip" } }]);
    const plain = mc("99-worker", [{ path: "/etc/a", contents: { source: "data:,plain" } }]);
    expect(mergeMachineConfigs([gzip, plain], "os").config.storage.files).toEqual([
      { path: "/etc/a", overwrite: true, contents: { source: "data:,plain" } },
    ]);
    expect(
      mergeMachineConfigs([plain, { ...gzip, metadata: { ...gzip.metadata, name: "zz-worker" } }], "os").config.storage.files[0].contents,
    ).toEqual({
      source: "data:;base64,H4sI",
      compression: "gzip",
    });
  });
});
