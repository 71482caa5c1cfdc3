import { gzipSync } from "node:zlib";
import { previewDisruption, type Preview } from "./engine";
import { readMachineConfig, type RenderedConfig } from "./machineConfig";
import { DEFAULT_POLICIES, type Action } from "./policy";

/** Builds rendered MachineConfig documents for tests: files by path (plain text), units, and spec fields. */
export type ConfigShape = {
  files?: Record<string, string | { gzip: string } | { source: string } | { text: string; append: true }>;
  units?: { name: string; contents?: string; enabled?: boolean; dropins?: { name: string; contents: string }[] }[];
  /** The passwd users; null leaves the list out (absent, not empty). Default: core with one key. */
  users?: Record<string, unknown>[] | null;
  groups?: Record<string, unknown>[];
  kernelArguments?: string[];
  extensions?: string[];
  kernelType?: string;
  fips?: boolean;
  osImageURL?: string;
  annotations?: Record<string, string>;
  directories?: unknown[];
  links?: unknown[];
  disks?: unknown[];
};

export function machineConfigDoc(shape: ConfigShape, name = "rendered-worker-test") {
  const files = Object.entries(shape.files ?? {}).map(([path, v]) => {
    if (typeof v === "string") return { path, mode: 420, overwrite: true, contents: { source: `data:,${encodeURIComponent(v)}` } };
    if ("gzip" in v)
      return { path, mode: 420, contents: { compression: "gzip", source: `data:;base64,${gzipSync(v.gzip).toString("base64")}` } };
    if ("append" in v) return { path, mode: 420, append: [{ source: `data:,${encodeURIComponent(v.text)}` }] };
    return { path, mode: 420, contents: { source: v.source } };
  });
  return {
    apiVersion: "machineconfiguration.openshift.io/v1",
    kind: "MachineConfig",
    metadata: { name, annotations: shape.annotations },
    spec: {
      config: {
        ignition: { version: "3.5.0" },
        storage: { files, directories: shape.directories, links: shape.links, disks: shape.disks },
        systemd: { units: shape.units ?? [] },
        passwd: {
          users:
            shape.users === null ? undefined : (shape.users ?? [{ name: "core", sshAuthorizedKeys: ["ssh-ed25519 AAAA core@example"] }]),
          groups: shape.groups,
        },
      },
      kernelArguments: shape.kernelArguments ?? [],
      extensions: shape.extensions ?? [],
      kernelType: shape.kernelType ?? "default",
      fips: shape.fips ?? false,
      osImageURL:
        shape.osImageURL ??
        "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:1111111111111111111111111111111111111111111111111111111111111111",
    },
  };
}

export const rendered = (shape: ConfigShape): RenderedConfig => readMachineConfig(machineConfigDoc(shape));

export type MachineConfigDoc = ReturnType<typeof machineConfigDoc>;

/**
 * A config built from `shape` whose document `change` edits in place before it is read, for what
 * ConfigShape cannot say (an empty list against an absent one, `{}` objects, stray fields).
 */
export function editedConfig(shape: ConfigShape, change: (doc: MachineConfigDoc) => void): RenderedConfig {
  const doc = machineConfigDoc(shape);
  change(doc);
  return readMachineConfig(doc);
}

/** A worker's rendered config with the files the defaults care about. */
export const BASE_FILES: Record<string, string> = {
  "/etc/chrony.conf": "pool 2.rhel.pool.ntp.org iburst\n",
  "/etc/containers/policy.json": '{"default":[{"type":"insecureAcceptAnything"}]}\n',
  "/etc/containers/registries.conf": 'unqualified-search-registries = ["registry.access.redhat.com", "docker.io"]\nshort-name-mode = ""\n',
  "/etc/kubernetes/kubelet.conf": "kind: KubeletConfiguration\n",
  "/var/lib/kubelet/config.json": '{"auths":{}}\n',
};

// Shared by the engine's tests: a change of files on the base config, previewed with the default policies.
export const defaults = { policies: DEFAULT_POLICIES, policySource: "defaults" as const };
export const base: ConfigShape = { files: BASE_FILES };
export const withFiles = (files: Record<string, string>, extra: ConfigShape = {}): ConfigShape => ({
  ...base,
  ...extra,
  files: { ...BASE_FILES, ...files },
});
export const run = (from: ConfigShape, to: ConfigShape, options: Partial<Parameters<typeof previewDisruption>[2]> = {}): Preview =>
  previewDisruption(rendered(from), rendered(to), { ...defaults, ...options });
export const reload = (s: string): Action => ({ type: "Reload", reload: { serviceName: s } });
export const restart = (s: string): Action => ({ type: "Restart", restart: { serviceName: s } });
