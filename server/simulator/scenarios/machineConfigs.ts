import { mergeMachineConfigs } from "../mco/render";
import type { KubeObject } from "../objectStore";

/**
 * Source and rendered MachineConfigs for a cluster's pools (the prod-east fixture files list them by name
 * but do not include them). Contents are small but realistic; each rendered config is the MCO-style
 * merge of its pool's sources, so a preview against the cluster compares like with like.
 */
const ROLE = "machineconfiguration.openshift.io/role";
const file = (path: string, text: string, mode = 420) => ({
  path,
  mode,
  overwrite: true,
  contents: { source: `data:,${encodeURIComponent(text)}` },
});

function source(
  name: string,
  role: string,
  spec: { files?: ReturnType<typeof file>[]; units?: unknown[]; users?: unknown[]; osImageURL?: string },
): KubeObject {
  return {
    apiVersion: "machineconfiguration.openshift.io/v1",
    kind: "MachineConfig",
    metadata: {
      name,
      labels: { [ROLE]: role },
      // The template controller's configs (00-<role>, 01-<role>-…) and the other controllers' "generated" ones carry
      // the annotation; MergeMachineConfigs takes an OS image override only from a config without it.
      annotations:
        name.includes("generated") || /^0[01]-/.test(name)
          ? { "machineconfiguration.openshift.io/generated-by-controller-version": "simulated" }
          : {},
    },
    spec: {
      config: {
        ignition: { version: "3.5.0" },
        storage: { files: spec.files ?? [] },
        systemd: { units: spec.units ?? [] },
        ...(spec.users ? { passwd: { users: spec.users } } : {}),
      },
      osImageURL: spec.osImageURL ?? "",
    },
  };
}

function sourcesFor(role: string, osImageURL: string): KubeObject[] {
  return [
    source(`00-${role}`, role, {
      osImageURL,
      files: [
        file(
          "/etc/containers/policy.json",
          '{"default":[{"type":"insecureAcceptAnything"}],"transports":{"docker-daemon":{"":[{"type":"insecureAcceptAnything"}]}}}\n',
        ),
        file(
          "/etc/containers/registries.conf",
          'unqualified-search-registries = ["registry.access.redhat.com", "docker.io"]\nshort-name-mode = ""\n',
        ),
        file("/etc/sysctl.d/inotify.conf", "fs.inotify.max_user_watches = 65536\nfs.inotify.max_user_instances = 8192\n"),
        file("/etc/NetworkManager/conf.d/99-keyfiles.conf", "[keyfile]\npath=/etc/NetworkManager/system-connections-merged\n"),
      ],
      units: [
        {
          name: "kubelet-auto-node-size.service",
          enabled: true,
          contents:
            "[Unit]\nDescription=Dynamically sets the system reserved for the kubelet\n[Service]\nType=oneshot\nExecStart=/usr/local/sbin/dynamic-system-reserved-calc.sh true\n[Install]\nWantedBy=multi-user.target\n",
        },
      ],
    }),
    source(`01-${role}-container-runtime`, role, {
      files: [
        file(
          "/etc/crio/crio.conf.d/00-default",
          '[crio.runtime]\nselinux = true\nconmon = ""\n[crio.image]\nglobal_auth_file = "/var/lib/kubelet/config.json"\n',
        ),
      ],
    }),
    source(`01-${role}-kubelet`, role, {
      files: [
        file(
          "/etc/kubernetes/kubelet.conf",
          "kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\ncgroupDriver: systemd\nmaxPods: 250\n",
        ),
      ],
      units: [
        {
          name: "kubelet.service",
          enabled: true,
          contents:
            "[Unit]\nDescription=Kubernetes Kubelet\nAfter=crio.service\n[Service]\nExecStart=/usr/bin/kubelet --config=/etc/kubernetes/kubelet.conf\nRestart=always\n[Install]\nWantedBy=multi-user.target\n",
        },
      ],
    }),
    source(`97-${role}-generated-kubelet`, role, {
      files: [file("/etc/node-sizing-enabled.env", "NODE_SIZING_ENABLED=true\nSYSTEM_RESERVED_MEMORY=1Gi\n")],
    }),
    source(`98-${role}-generated-kubelet`, role, {
      files: [
        file(
          "/etc/kubernetes/kubelet.conf.d/98-generated.conf",
          "kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\nsystemReserved:\n  cpu: 500m\n",
        ),
      ],
    }),
    source(`99-${role}-generated-registries`, role, {
      files: [
        file(
          "/etc/containers/registries.conf",
          'unqualified-search-registries = ["registry.access.redhat.com", "docker.io"]\nshort-name-mode = ""\n\n[[registry]]\nprefix = ""\nlocation = "quay.io/openshift-release-dev/ocp-v4.0-art-dev"\n\n[[registry.mirror]]\nlocation = "mirror.prod-east.example.com/ocp-v4.0-art-dev"\npull-from-mirror = "digest-only"\n',
        ),
      ],
    }),
    source(`99-${role}-ssh`, role, {
      users: [
        {
          name: "core",
          sshAuthorizedKeys: ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFleetskewExampleKeyOnlyForTheSimulator admin@prod-east"],
        },
      ],
    }),
  ];
}

/** MachineConfigs for the pools in `pools` (MachineConfigPool objects), by the names their configurations list. */
export function machineConfigsForPools(pools: KubeObject[], osImageURL: string, extra: KubeObject[] = []): KubeObject[] {
  const byName = new Map<string, KubeObject>();
  for (const mc of extra) byName.set(mc.metadata.name!, mc);
  for (const role of ["master", "worker"]) for (const mc of sourcesFor(role, osImageURL)) byName.set(mc.metadata.name!, mc);
  byName.set(
    "99-worker-chrony",
    source("99-worker-chrony", "worker", {
      files: [file("/etc/chrony.conf", "pool 2.rhel.pool.ntp.org iburst\ndriftfile /var/lib/chrony/drift\nmakestep 1.0 3\nrtcsync\n")],
    }),
  );
  byName.set(
    "99-infra-generated-kubelet",
    source("99-infra-generated-kubelet", "infra", {
      files: [
        file(
          "/etc/kubernetes/kubelet.conf.d/99-infra.conf",
          "kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\nmaxPods: 150\n",
        ),
      ],
    }),
  );
  const rendered: KubeObject[] = [];
  for (const pool of pools) {
    const configuration = (pool.spec as { configuration?: { name?: string; source?: { name: string }[] } } | undefined)?.configuration;
    if (!configuration?.name || !configuration.source) continue;
    const sources = configuration.source.map((s) => byName.get(s.name)).filter((m): m is KubeObject => m !== undefined);
    rendered.push({
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "MachineConfig",
      metadata: {
        name: configuration.name,
        annotations: {
          "machineconfiguration.openshift.io/generated-by-controller-version": "simulated",
          "machineconfiguration.openshift.io/release-image-version": "simulated",
        },
      },
      spec: mergeMachineConfigs(sources, osImageURL),
    });
  }
  return [...byName.values(), ...rendered];
}
