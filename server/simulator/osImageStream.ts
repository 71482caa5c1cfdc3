/**
 * OSImageStream `cluster` as the MCO's OSImageStream controller writes it (openshift/machine-config-operator
 * release-4.23 pkg/controller/osimagestream, pkg/osimagestream/osimagestream.go `newOSImageStream`):
 * the streams the release payload ships, sorted by name, and the default — on a cluster that had no
 * OSImageStream, `GetBuiltinDefaultStreamName` of the install version, which for every simulated
 * cluster (installed at 4.x) is rhel-9. Written here from the MCO's source, not from Fleetskew's
 * predictions (docs/simulator.md).
 */
const digestOf = (text: string) => Buffer.from(text.padEnd(32, "0")).toString("hex").slice(0, 64);
const image = (name: string, version: string) => `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${digestOf(`${name}-${version}`)}`;

export function osImageStreamObject(version: string, apiVersion = "machineconfiguration.openshift.io/v1", defaultStream = "rhel-9") {
  const streams = ["rhel-10", "rhel-9"].map((name) => ({
    name,
    osImage: image(`${name}-os`, version),
    osExtensionsImage: image(`${name}-ext`, version),
  }));
  return {
    apiVersion,
    kind: "OSImageStream",
    metadata: {
      name: "cluster",
      labels: { "openshift.io/operator-managed": "" },
      annotations: { "machineconfiguration.openshift.io/release-image-version": "simulated" },
    },
    spec: { defaultStream },
    status: { availableStreams: streams, defaultStream },
  };
}
