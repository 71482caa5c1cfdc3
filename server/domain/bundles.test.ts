import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  alwaysPullPod,
  checkManifest,
  pinnedImagesOf,
  precheckKey,
  totalBytes,
  diskVerdict,
  explainPinFailure,
  imageReferenceProblem,
  labelsForPool,
  manifestDigest,
  nodePinProgress,
  normalizeDigest,
  pinnedImageSetName,
  poolsSelecting,
  precheckBundle,
  summarizeProgress,
  type BundleManifest,
  type PodLike,
  type PrecheckInput,
} from "./bundles";
import { node } from "./testing/snapshots";

const GiB = 1024 ** 3;
const hex = (c: string) => c.repeat(64);
const manifest: BundleManifest = {
  apiVersion: "fleetskew.io/v1",
  kind: "UpgradeBundle",
  release: { version: "4.19.11", image: `quay.io/openshift-release-dev/ocp-release@sha256:${hex("a")}` },
  images: [
    { name: `quay.io/openshift-release-dev/ocp-release@sha256:${hex("a")}`, sizeBytes: 5 * GiB },
    { name: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${hex("b")}`, sizeBytes: 5 * GiB },
    { name: `mirror.example.com:5000/ocp4/openshift4@sha256:${hex("c")}`, sizeBytes: 5 * GiB },
  ],
  createdAt: "2026-11-01T09:00:00Z",
};

describe("image references (PinnedImageSet ImageDigestFormat)", () => {
  it.each([
    [`quay.io/openshift-release-dev/ocp-release@sha256:${hex("a")}`, null],
    [`mirror.example.com:5000/ocp@sha256:${hex("0")}`, null],
    ["quay.io/openshift-release-dev/ocp-release:4.19.11", /names the tag "4\.19\.11"/],
    [`quay.io/ocp-release@sha256:${hex("A")}`, /64 lowercase hex/],
    [`quay.io/a/b/c@sha256:${hex("a")}`, /host\[:port\]\[\/namespace\]\/name/],
    [`localhost/ocp@sha256:${hex("a")}`, /host\[:port\]/],
    ["", /1 to 447/],
  ])("%s", (ref, problem) => {
    const found = imageReferenceProblem(ref);
    if (problem === null) expect(found).toBeNull();
    else expect(found).toMatch(problem);
  });
});

describe("manifests", () => {
  it("accepts a valid manifest", () => {
    expect(checkManifest(JSON.stringify(manifest))).toEqual({ ok: true, manifest });
  });

  it("the example in docs/examples is a valid manifest", () => {
    const text = readFileSync(path.resolve(__dirname, "../../docs/examples/bundle-4.19.11.json"), "utf8");
    expect(checkManifest(text)).toMatchObject({ ok: true });
  });

  it("counts the release image in the total, once: it is pinned with the others", () => {
    expect(totalBytes(manifest)).toBe(15 * GiB);
    expect(pinnedImagesOf(manifest)).toEqual(manifest.images.map((i) => i.name));
    const withoutRelease = { ...manifest, images: manifest.images.slice(1) };
    const refused = checkManifest(JSON.stringify(withoutRelease));
    expect(refused).toEqual({
      ok: false,
      problems: [
        "images: does not list the release image (release.image). Fleetskew pins the release image with the others and counts its size in the disk check, " +
          "so images[] must list it with its sizeBytes. The manifest cannot be fixed by editing it (that changes its digest, and the vetting no longer applies): " +
          "the bundle must be rebuilt with the release image listed in images[], with its size, and the new manifest vetted again",
      ],
    });
  });

  it.each([
    ["not JSON", "{", /not valid JSON/],
    ["wrong kind", JSON.stringify({ ...manifest, kind: "Bundle" }), /^kind: must be "UpgradeBundle"$/],
    ["no images", JSON.stringify({ ...manifest, images: [] }), /^images: must list at least one image$/],
    [
      "a tag for the release",
      JSON.stringify({ ...manifest, release: { ...manifest.release, image: "quay.io/x/ocp-release:4.19" } }),
      /^release\.image: .*names the tag/,
    ],
    [
      "a fractional size",
      JSON.stringify({ ...manifest, images: [{ ...manifest.images[0], sizeBytes: 1.5 }] }),
      /^images\[0\]\.sizeBytes: must be a whole number/,
    ],
    [
      "an image listed twice",
      JSON.stringify({ ...manifest, images: [manifest.images[0], manifest.images[0]] }),
      /^images\[1\]\.name: .* is listed twice/,
    ],
    ["an unknown field", JSON.stringify({ ...manifest, extra: 1 }), /extra/],
    [
      "a bad release version",
      JSON.stringify({ ...manifest, release: { ...manifest.release, version: "4.19" } }),
      /^release\.version: must be an OpenShift release/,
    ],
    [
      "a release version with leading zeros",
      JSON.stringify({ ...manifest, release: { ...manifest.release, version: "04.019.011" } }),
      /^release\.version: must be an OpenShift release/,
    ],
    [
      "an image size no image has",
      JSON.stringify({ ...manifest, images: [{ ...manifest.images[0], sizeBytes: Number.MAX_SAFE_INTEGER }] }),
      /^images\[0\]\.sizeBytes: must be at most 1 TiB/,
    ],
    ["a bad date", JSON.stringify({ ...manifest, createdAt: "yesterday" }), /^createdAt: must be an ISO 8601 time/],
  ])("refuses %s, naming where", (_what, text, problem) => {
    const result = checkManifest(text);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.problems.some((p) => problem.test(p))).toBe(true);
  });

  it("digests are of the file's bytes; people may paste them with a prefix and in capitals", () => {
    // As `sha256sum` prints it for the same file.
    expect(manifestDigest("{}\n")).toBe("ca3d163bab055381827226140568f3bef7eaac187cebd76878e0b63e9e442356");
    expect(manifestDigest(Buffer.from("{}\n"))).toBe("ca3d163bab055381827226140568f3bef7eaac187cebd76878e0b63e9e442356");
    expect(normalizeDigest(` sha256:${hex("A")} `)).toBe(hex("a"));
    expect(normalizeDigest("abc")).toBeNull();
  });

  it("names a pool's set after the release, the digest and the pool", () => {
    expect(pinnedImageSetName(manifest, hex("d"), "worker")).toBe("fleetskew-4-19-11-dddddddd-worker");
  });
});

describe("aiming a PinnedImageSet at a pool (reference §6: pools select sets by machineConfigSelector)", () => {
  const role = (...values: string[]) =>
    values.length === 1
      ? { matchLabels: { "machineconfiguration.openshift.io/role": values[0]! } }
      : { matchExpressions: [{ key: "machineconfiguration.openshift.io/role", operator: "In", values }] };
  const pools = [
    { name: "master", machineConfigSelector: role("master") },
    { name: "worker", machineConfigSelector: role("worker") },
    { name: "infra", machineConfigSelector: role("worker", "infra") },
    { name: "gpu", machineConfigSelector: { matchLabels: { "example.com/accelerator": "nvidia" } } },
    { name: "broken", machineConfigSelector: { matchExpressions: [{ key: "x", operator: "Exists" }] } },
  ];
  it.each([
    ["a standard pool: its role", "worker", { "machineconfiguration.openshift.io/role": "worker" }, ["worker", "infra"]],
    [
      "a custom pool that also selects worker configs: its own role, so the worker pool stays out",
      "infra",
      { "machineconfiguration.openshift.io/role": "infra" },
      ["infra"],
    ],
    ["a pool selecting other labels: its matchLabels", "gpu", { "example.com/accelerator": "nvidia" }, ["gpu"]],
  ])("%s", (_rule, name, labels, selected) => {
    const pool = pools.find((p) => p.name === name)!;
    expect(labelsForPool(pool, pools)).toEqual(labels);
    expect(poolsSelecting(pools, labels)).toEqual(selected);
  });

  it("a pool no derivable labels match fails the precheck", () => {
    expect(labelsForPool(pools[4]!, pools)).toBeNull();
    const checks = precheckBundle(input({ nodes: [], pools: [{ ...pools[4]!, degraded: false, updating: false, degradedMessage: null }] }));
    expect(checks.find((c) => c.id === "pool-not-selectable")).toMatchObject({ status: "fail", pool: "broken" });
  });
});

describe("the MCO's disk check (reference §6)", () => {
  it.each([
    ["room for twice the images", 100 * GiB, 40 * GiB, true],
    ["exactly at the limit is refused (strictly less than)", 96 * GiB, 40 * GiB, false],
    ["less than 16 GiB allocatable is refused whatever the images", 15 * GiB, 1, false],
    ["unknown allocatable", null, 1, null],
  ])("%s", (_rule, allocatable, images, ok) => {
    expect(diskVerdict(allocatable as number | null, images).ok).toBe(ok);
  });
});

const input = (over: Partial<PrecheckInput> = {}): PrecheckInput => ({
  manifest,
  digest: hex("d"),
  pools: [
    {
      name: "master",
      machineConfigSelector: { matchLabels: { "machineconfiguration.openshift.io/role": "master" } },
      degraded: false,
      updating: false,
      degradedMessage: null,
    },
    {
      name: "worker",
      machineConfigSelector: { matchLabels: { "machineconfiguration.openshift.io/role": "worker" } },
      degraded: false,
      updating: false,
      degradedMessage: null,
    },
  ],
  nodes: [
    { name: "m1", pool: "master", ephemeralBytes: 120 * GiB, ready: true, diskPressure: false },
    { name: "w1", pool: "worker", ephemeralBytes: 120 * GiB, ready: true, diskPressure: false },
    { name: "w2", pool: "worker", ephemeralBytes: 40 * GiB, ready: true, diskPressure: false },
  ],
  alwaysPullPods: [],
  pinnedImageSets: [],
  unavailable: [],
  ...over,
});

describe("prechecks", () => {
  it("fails a pool with a node short of disk, naming the node and the figures", () => {
    const checks = precheckBundle(input());
    expect(checks.find((c) => c.id === "disk-space" && c.pool === "master")!.status).toBe("pass");
    const worker = checks.find((c) => c.id === "disk-space" && c.pool === "worker")!;
    expect(worker).toMatchObject({ status: "fail", items: ["w2"] });
    expect(worker.detail).toContain("(30.0 GiB) plus 16 GiB");
    expect(worker.detail).toContain("w2 has 40.0 GiB");
  });

  it("fails a pool with a node under DiskPressure, whatever its allocatable storage (the MCO pulls nothing there)", () => {
    const checks = precheckBundle(
      input({
        nodes: [
          { name: "m1", pool: "master", ephemeralBytes: 120 * GiB, ready: true, diskPressure: true },
          { name: "w1", pool: "worker", ephemeralBytes: 120 * GiB, ready: true, diskPressure: null },
        ],
      }),
    );
    const master = checks.find((c) => c.id === "disk-space" && c.pool === "master")!;
    expect(master).toMatchObject({ status: "fail", title: "Not enough disk on 1 node of master", items: ["m1"] });
    expect(master.detail).toBe(
      "m1 is running out of disk right now (the node reports DiskPressure), and the MCO does not pull images onto a node in that state.",
    );
    expect(master.remedy).toMatch(/^Free disk space on m1 .* until the node no longer reports DiskPressure, then check again\.$/);
    // No DiskPressure condition (or a snapshot from before it was read) is not a failure.
    expect(checks.find((c) => c.id === "disk-space" && c.pool === "worker")!.status).toBe("pass");

    // Short of allocatable storage and under pressure: one check names both.
    const both = precheckBundle(
      input({ nodes: [{ name: "w2", pool: "worker", ephemeralBytes: 40 * GiB, ready: true, diskPressure: true }] }),
    ).find((c) => c.id === "disk-space" && c.pool === "worker")!;
    expect(both).toMatchObject({ status: "fail", items: ["w2"] });
    expect(both.detail).toMatch(/w2 has 40\.0 GiB\. w2 is running out of disk right now/);
  });

  it("keys each finding by check, pool and what it names, so a changed warning is a new one", () => {
    const pods = [{ namespace: "shop", name: "cart-1", node: "w1", containers: ["main"] }];
    const key = (over: Partial<PrecheckInput>) => precheckBundle(input(over)).find((c) => c.id === "always-pull-pods")!.key;
    expect(key({ alwaysPullPods: pods })).toBe(key({ alwaysPullPods: [...pods] }));
    expect(key({ alwaysPullPods: pods })).toMatch(/^always-pull-pods\/cluster\/[0-9a-f]{12}$/);
    expect(key({ alwaysPullPods: [...pods, { namespace: "shop", name: "cart-2", node: "w2", containers: ["main"] }] })).not.toBe(
      key({ alwaysPullPods: pods }),
    );
    expect(precheckKey({ id: "pool-updating", pool: "worker", items: [] })).toBe("pool-updating/worker");
    expect(precheckKey({ id: "x", pool: null, items: ["b", "a"] })).toBe(precheckKey({ id: "x", pool: null, items: ["a", "b"] }));
  });

  it("keys pods that always pull by their workload and images, not their names, which change with every rollout and run", () => {
    const pod = (name: string, over: { owner?: [string, string]; hash?: string; image?: string; ns?: string } = {}): PodLike => ({
      metadata: {
        name,
        namespace: over.ns ?? "shop",
        labels: over.hash ? { app: "cart", "pod-template-hash": over.hash } : { app: "cart" },
        ownerReferences: over.owner
          ? [
              { kind: "Node", name: "w1" }, // not the controller
              { kind: over.owner[0], name: over.owner[1], controller: true },
            ]
          : undefined,
      },
      spec: {
        nodeName: "w1",
        containers: [
          { name: "main", image: over.image ?? "registry.example.com/shop/cart@sha256:aaa", imagePullPolicy: "Always" },
          { name: "sidecar", image: "registry.example.com/proxy@sha256:bbb", imagePullPolicy: "IfNotPresent" },
        ],
      },
      status: { phase: "Running" },
    });
    const key = (...pods: PodLike[]) =>
      precheckBundle(input({ alwaysPullPods: pods.map((p) => alwaysPullPod(p)!) })).find((c) => c.id === "always-pull-pods")!.key;

    // A Deployment's pod, replaced by a rolling restart (new ReplicaSet, new pod name): the same warning.
    const deployed = key(pod("cart-7d9f8b6c5-x2k4q", { owner: ["ReplicaSet", "cart-7d9f8b6c5"], hash: "7d9f8b6c5" }));
    expect(key(pod("cart-5f6b7c8d9-p9r7t", { owner: ["ReplicaSet", "cart-5f6b7c8d9"], hash: "5f6b7c8d9" }))).toBe(deployed);
    // Scaled out: more pods of the same workload pulling the same image are the same warning.
    expect(
      key(
        pod("cart-5f6b7c8d9-p9r7t", { owner: ["ReplicaSet", "cart-5f6b7c8d9"], hash: "5f6b7c8d9" }),
        pod("cart-5f6b7c8d9-zz81m", { owner: ["ReplicaSet", "cart-5f6b7c8d9"], hash: "5f6b7c8d9" }),
      ),
    ).toBe(deployed);
    // A new image, or another workload, is a new warning.
    expect(
      key(pod("cart-6a-x", { owner: ["ReplicaSet", "cart-6a"], hash: "6a", image: "registry.example.com/shop/cart@sha256:ccc" })),
    ).not.toBe(deployed);
    expect(key(pod("checkout-7d9f8b6c5-x2k4q", { owner: ["ReplicaSet", "checkout-7d9f8b6c5"], hash: "7d9f8b6c5" }))).not.toBe(deployed);

    // A CronJob's pods: a new Job and a new pod every run, the same warning.
    const nightly = key(pod("report-29012345-abcde", { owner: ["Job", "report-29012345"] }));
    expect(key(pod("report-29012405-fghij", { owner: ["Job", "report-29012405"] }))).toBe(nightly);
    expect(key(pod("export-29012405-fghij", { owner: ["Job", "export-29012405"] }))).not.toBe(nightly);
    // A StatefulSet keeps its name; a DaemonSet's pods differ per node, not per workload.
    expect(key(pod("db-0", { owner: ["StatefulSet", "db"] }))).toBe(key(pod("db-1", { owner: ["StatefulSet", "db"] })));
    expect(key(pod("agent-a1b2c", { owner: ["DaemonSet", "agent"] }))).not.toBe(key(pod("agent-a1b2c", { owner: ["DaemonSet", "other"] })));

    // A bare pod: by namespace and image.
    expect(key(pod("debug-1"))).toBe(key(pod("debug-2")));
    expect(key(pod("debug-1"))).not.toBe(key(pod("debug-1", { image: "registry.example.com/tools@sha256:ddd" })));
    expect(key(pod("debug-1"))).not.toBe(key(pod("debug-1", { ns: "other" })));

    // What is shown still names the pods.
    const shown = precheckBundle(input({ alwaysPullPods: [alwaysPullPod(pod("db-0", { owner: ["StatefulSet", "db"] }))!] })).find(
      (c) => c.id === "always-pull-pods",
    )!;
    expect(shown.items).toEqual(["shop/db-0"]);
    expect(alwaysPullPod({ ...pod("done"), status: { phase: "Succeeded" } })).toBeNull();
  });

  it("fails a degraded pool, warns for an updating one, pods that always pull and other pinned sets", () => {
    const checks = precheckBundle(
      input({
        nodes: [],
        pools: [
          {
            name: "master",
            machineConfigSelector: undefined,
            degraded: true,
            updating: false,
            degradedMessage: "node m1 is reporting: boom",
          },
          { name: "worker", machineConfigSelector: undefined, degraded: false, updating: true, degradedMessage: null },
        ],
        alwaysPullPods: [{ namespace: "shop", name: "cart-1", node: "w1", containers: ["main"] }],
        pinnedImageSets: [{ name: "old", labels: { "fleetskew.io/release": "4.19.10" }, images: ["x"] }],
      }),
    );
    const status = Object.fromEntries(checks.map((c) => [`${c.id}/${c.pool ?? ""}`, c.status]));
    expect(status).toMatchObject({
      "pool-degraded/master": "fail",
      "pool-updating/worker": "warn",
      "always-pull-pods/": "warn",
      "existing-pinned-image-sets/": "warn",
    });
    expect(checks.find((c) => c.id === "existing-pinned-image-sets")!.detail).toContain("old (bundle for 4.19.10)");
  });

  it("recognises its own sets as already applied; unreadable parts become warnings", () => {
    const own = pinnedImageSetName(manifest, hex("d"), "worker");
    const checks = precheckBundle(
      input({
        nodes: [],
        pinnedImageSets: [{ name: own, labels: {}, images: [] }],
        unavailable: [{ part: "pods", reason: "pods is forbidden" }],
      }),
    );
    expect(checks.find((c) => c.id === "already-applied")!.status).toBe("pass");
    expect(checks.find((c) => c.id === "existing-pinned-image-sets")!.status).toBe("pass");
    expect(checks.find((c) => c.id === "always-pull-pods")).toMatchObject({
      status: "warn",
      detail: expect.stringContaining("pods is forbidden"),
    });
  });
});

describe("a node's pre-load in plain words (MachineConfigNode, reference §5.2)", () => {
  const set = { name: "s", generation: 2 };
  it.each([
    ["current generation reached: done", node("n", "worker", [{ set: "s", currentGeneration: 2, desiredGeneration: 2 }]), "done"],
    [
      "progressing: pulling",
      { ...node("n", "worker", [{ set: "s", currentGeneration: 1, desiredGeneration: 2 }]), pinnedProgressing: true },
      "pulling",
    ],
    ["no entry yet: waiting", node("n", "worker"), "waiting"],
    [
      "failed for this generation while degraded: failed",
      {
        ...node("n", "worker", [
          { set: "s", currentGeneration: 1, desiredGeneration: 2, lastFailedGeneration: 2, error: "no space left on device" },
        ]),
        pinnedDegraded: true,
      },
      "failed",
    ],
    [
      "an old failure, being retried: pulling",
      {
        ...node("n", "worker", [{ set: "s", currentGeneration: 1, desiredGeneration: 2, lastFailedGeneration: 2, error: "x" }]),
        pinnedProgressing: true,
      },
      "pulling",
    ],
  ])("%s", (_rule, n, state) => {
    expect(nodePinProgress(n, set, GiB).state).toBe(state);
  });

  it.each([
    ["storage available is less than minimum required", "failed: not enough disk"],
    ["write /var/lib/containers: no space left on device", "failed: disk filled up while pulling"],
    ["reading manifest sha256:abc in mirror.example.com/ocp: manifest unknown", "failed: image not in the mirror"],
    ["unauthorized: authentication required", "failed: the registry refused the node"],
    ["dial tcp 10.0.0.5:5000: i/o timeout", "failed: registry not reachable"],
    ["something else entirely", "failed"],
  ])("explains %s", (error, label) => {
    const explained = explainPinFailure(error, 10 * GiB, 20 * GiB);
    expect(explained.label).toBe(label);
    expect(explained.remedy.length).toBeGreaterThan(20);
  });

  it("summarizes: all done only when every node is done", () => {
    const done = nodePinProgress(node("a", "worker", [{ set: "s", currentGeneration: 2, desiredGeneration: 2 }]), set, 1);
    const waiting = nodePinProgress(node("b", "worker"), set, 1);
    expect(summarizeProgress([done, waiting])).toEqual({ total: 2, done: 1, pulling: 0, waiting: 1, failed: 0, allDone: false });
    expect(summarizeProgress([done]).allDone).toBe(true);
    expect(summarizeProgress([]).allDone).toBe(false);
  });
});
