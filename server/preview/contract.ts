/**
 * What the MachineConfig preview endpoints of /api/v1 take and send, defined once: route handlers
 * bind to these endpoints, the browser calls them, the OpenAPI document is made from them. Imports
 * zod and pure modules only, so the browser may import it.
 */
import { z } from "zod";
import { endpoint, isoDate } from "../http/endpoint";

/** The proposed MachineConfig as the API takes it: YAML or JSON text, at most 1 MiB. */
export const MachineConfigText = z
  .string()
  .min(1, "Paste a MachineConfig")
  .max(1024 * 1024, "The MachineConfig is larger than 1 MiB");
/** The body a preview may send: the MachineConfig and the JSON around it. */
export const MAX_PREVIEW_BODY = 1024 * 1024 + 64 * 1024;

/** Clusters one fleet preview contacts at most: each is read live, four at a time. */
export const MAX_FLEET_PREVIEW_CLUSTERS = 100;

/** "all", the fleet view's query string, or cluster names (each named once, however often it is listed). */
export const FleetPreviewClusters = z
  .union([
    z.literal("all"),
    z.strictObject({
      query: z
        .string()
        .max(4000)
        .meta({ description: 'The fleet view\'s query string (as in its URL, e.g. "platform=AWS&q=edge"): the live clusters it matches' }),
    }),
    z
      .array(z.string().max(63))
      .min(1, "Choose at least one cluster")
      .max(10_000)
      .transform((names) => [...new Set(names)])
      .refine((names) => names.length <= MAX_FLEET_PREVIEW_CLUSTERS, {
        error: `a fleet preview covers at most ${MAX_FLEET_PREVIEW_CLUSTERS} clusters; choose fewer`,
      }),
  ])
  .default("all");

export const ClusterPreviewRequest = z.object({ machineConfig: MachineConfigText });
export const FleetPreviewRequest = z.object({ machineConfig: MachineConfigText, clusters: FleetPreviewClusters });
export type FleetPreviewRequest = z.input<typeof FleetPreviewRequest>;

const Action = z
  .discriminatedUnion("type", [
    z.strictObject({ type: z.literal("Reboot") }),
    z.strictObject({ type: z.literal("Drain") }),
    z.strictObject({ type: z.literal("None") }),
    z.strictObject({ type: z.literal("DaemonReload") }),
    z.strictObject({ type: z.literal("Special") }),
    z.strictObject({ type: z.literal("Reload"), reload: z.strictObject({ serviceName: z.string() }) }),
    z.strictObject({ type: z.literal("Restart"), restart: z.strictObject({ serviceName: z.string() }) }),
  ])
  .meta({ id: "DisruptionAction" });

const Words = z.array(z.string()).meta({ description: "Each action in words, in the order of `actions`" });

const ExplainedPreview = z.strictObject({
  path: z.enum(["node-disruption-policy", "legacy"]),
  actions: z.array(Action),
  actionWords: Words,
  reboot: z.boolean(),
  drain: z.boolean(),
  drainReason: z.string().nullable(),
  unreconcilable: z.array(z.string()).meta({ description: "Why the MCO refuses the change (it is then not applied at all)" }),
  changes: z.array(
    z.strictObject({
      kind: z.enum(["file", "unit", "ssh", "os"]),
      name: z.string().meta({ description: "Path, unit name, sshkey or the OS field that changed" }),
      change: z.enum(["added", "changed", "removed"]),
      decidedBy: z.string(),
      actions: z.array(Action),
      actionWords: Words,
    }),
  ),
  warnings: z.array(z.string()),
  imageMode: z.strictObject({ newImageBuilt: z.boolean(), note: z.string() }).nullable(),
  mcoRelease: z
    .enum(["4.22", "4.23"])
    .nullable()
    .meta({ description: "The MCO release line whose rules the preview follows (docs/openshift.md §25); null when nothing was predicted" }),
});

const FileComparison = z.strictObject({
  path: z.string(),
  shown: z.enum(["both", "submitted", "none", "secret"]).meta({
    description:
      "both: both sides' contents (roles that may read cluster configuration); submitted: the caller's own file only; none: neither; secret: never, the file looking like credentials (digests tell whether it changed)",
  }),
  before: z.string().nullable(),
  after: z.string().nullable(),
  digests: z.strictObject({ before: z.string().nullable(), after: z.string().nullable() }).nullable(),
  note: z.string().nullable(),
});

const PoolPreview = z.strictObject({
  pool: z.string(),
  verdict: z.string().meta({
    description:
      'One line: "Reboot", "Restart chronyd.service, no drain", "Drain + reload crio.service", "No disruption", "Refused", or "Unknown" when the pool\'s configuration cannot be rebuilt (a note says why)',
  }),
  nodes: z.number().int(),
  preview: ExplainedPreview,
  notes: z.array(z.string()),
  files: z.array(FileComparison),
});
export type PoolPreview = z.output<typeof PoolPreview>;

export const ClusterPreviewAnswer = z
  .strictObject({
    cluster: z.string(),
    source: z.enum(["live", "stored"]).meta({
      description: "live: read from the cluster now; stored: the copy kept from its last sweep, the cluster being unreachable",
    }),
    observedAt: isoDate().meta({ description: "When the configuration previewed was read" }),
    sourceNote: z.string().nullable().meta({ description: "Why the stored copy was used" }),
    policySource: z.string(),
    pools: z.array(PoolPreview),
    unmatched: z.string().nullable(),
  })
  .meta({ id: "ClusterPreview" });
export type ClusterPreview = z.output<typeof ClusterPreviewAnswer>;

const FailedPreview = z
  .strictObject({ cluster: z.string(), error: z.string().meta({ description: "Why this cluster could not be previewed" }) })
  .meta({ id: "FailedClusterPreview" });

export const FleetPreviewAnswer = z.strictObject({
  clusters: z.array(z.union([FailedPreview, ClusterPreviewAnswer])).meta({ description: "In the order asked for" }),
  summary: z.strictObject({
    rebootNodes: z.number().int(),
    rebootClusters: z.number().int(),
    otherNodes: z.number().int(),
    otherClusters: z.number().int(),
    refusedNodes: z.number().int(),
    refusedClusters: z.number().int(),
    unknownPools: z.number().int(),
    stored: z.number().int(),
    failed: z.number().int(),
    names: z
      .strictObject({
        reboot: z.array(z.string()),
        other: z.array(z.string()),
        refused: z.array(z.string()),
        unmatched: z.array(z.string()),
        failed: z.array(z.string()),
      })
      .meta({ description: "The clusters each count is, in the order previewed; unmatched: no pool there selects the MachineConfig" }),
    text: z.string().meta({
      description:
        'One line naming the first few clusters: "reboots 340 nodes in 12 clusters (a, b, c and 9 more), no reboot in 30 clusters (…)"',
    }),
  }),
});
export type FleetPreview = z.output<typeof FleetPreviewAnswer>;

const CONTENTS =
  "File contents are shown as the caller's role may see them: in full to roles that may read cluster configuration (admins); to others only the file they submitted; never a file that looks like credentials (only digests). One answer carries at most 8 MiB of contents.";

export const previewEndpoints = {
  cluster: endpoint({
    method: "POST",
    path: "/api/v1/clusters/{name}/preview",
    summary: "What a proposed MachineConfig does to each matching pool of one cluster",
    description: `The cluster is read live; when it cannot be, the copy its last sweep kept is used and the answer says so (503 when there is none). ${CONTENTS}`,
    access: "any",
    params: z.object({ name: z.string().min(1) }),
    body: ClusterPreviewRequest,
    maxBodyBytes: MAX_PREVIEW_BODY,
    errors: [409, 422],
    work: { kind: "preview" },
    answer: ClusterPreviewAnswer,
  }),
  fleet: endpoint({
    method: "POST",
    path: "/api/v1/preview",
    summary: "The same proposed MachineConfig previewed on several clusters, with a one-line summary",
    description: `\`clusters\`: "all" (the live clusters), \`{query}\` (the live clusters the fleet view's query string matches) or names, at most ${MAX_FLEET_PREVIEW_CLUSTERS}; 404 names clusters that are not registered, 422 when "all" is more than that. One cluster's failure is reported in its place, not fatal. ${CONTENTS}`,
    access: "any",
    body: FleetPreviewRequest,
    maxBodyBytes: MAX_PREVIEW_BODY,
    errors: [404, 422],
    work: { kind: "preview" },
    answer: FleetPreviewAnswer,
  }),
};
