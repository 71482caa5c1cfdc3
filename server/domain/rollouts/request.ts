/**
 * What a rollout plan is made from, as `POST /api/v1/rollouts` takes it: the write it carries, the
 * clusters (the fleet view's query, or names), the strategy and the maintenance windows. Every
 * field is checked here, so a bad strategy is a 400 naming its field and nothing is saved.
 */
import { z } from "zod";
import { parseAmount, type Amount } from "./amount";
import { parseDuration } from "./duration";
import { checkWindow, type MaintenanceWindow } from "./windows";
import { AcknowledgementRequestSchema } from "../acknowledgements";

const ClusterName = z.string().min(1).max(253);

/** A count or a percentage (`10`, `"25%"`), read into an Amount; `min` 1 for concurrency, 0 for failures. */
const amount = (min: 0 | 1) =>
  z.union([z.number(), z.string()]).transform((value, ctx): Amount => {
    const parsed = parseAmount(value, { min });
    if (!parsed.ok) {
      ctx.addIssue({ code: "custom", message: parsed.reason });
      return z.NEVER;
    }
    return parsed.amount;
  });

/** A Kubernetes duration (`30m`, `2h`) in milliseconds; `None` (no deadline, as OCM writes it) is null. */
const duration = (what: string, { allowNone }: { allowNone: boolean }) =>
  z.string().transform((text, ctx): number | null => {
    if (allowNone && text.trim() === "None") return null;
    const parsed = parseDuration(text);
    if (!parsed.ok) {
      ctx.addIssue({ code: "custom", message: parsed.reason });
      return z.NEVER;
    }
    if (parsed.ms === 0 && what === "progressDeadline") {
      ctx.addIssue({ code: "custom", message: "a deadline of zero fails every cluster at once; write None for no deadline" });
      return z.NEVER;
    }
    return parsed.ms;
  });

export const MaintenanceWindowSchema = z
  .strictObject({ schedule: z.string().max(200), duration: z.string().max(20), timeZone: z.string().max(64).default("UTC") })
  .transform((spec, ctx): MaintenanceWindow => {
    const checked = checkWindow(spec);
    if (!checked.ok) {
      ctx.addIssue({ code: "custom", message: checked.reason, path: [checked.field] });
      return z.NEVER;
    }
    return checked.window;
  });

export const RolloutStrategySchema = z.strictObject({
  canaries: z.union([z.number().int().min(0).max(100), z.array(ClusterName).max(100)]).default(0),
  maxConcurrency: amount(1).optional(),
  groupBy: z.string().min(1).max(317).optional(),
  minSuccessTime: duration("minSuccessTime", { allowNone: false }).default(0),
  /** Omitted: the kind's default, resolved when the plan is made (./deadline.ts); `None`: no deadline. */
  progressDeadline: duration("progressDeadline", { allowNone: true }).optional(),
  maxFailures: amount(0).default({ count: 0 }),
  mandatoryGroups: z.array(z.string().min(1).max(63)).max(100).default([]),
  onFailure: z.enum(["pause", "continue"]).default("pause"),
  releaseEachWave: z.boolean().default(false),
});

export const RolloutWindowsSchema = z
  .strictObject({
    /** The window every cluster uses unless its label value has its own. */
    default: MaintenanceWindowSchema.optional(),
    /** Each value of this label its own window (each site its own night). */
    label: z.string().min(1).max(317).optional(),
    byValue: z.record(z.string().max(63), MaintenanceWindowSchema).optional(),
  })
  .refine((w) => !w.byValue || w.label, {
    message: "windows.byValue needs windows.label: the label whose values they are",
    path: ["label"],
  });

const Selection = z.union([
  z.strictObject({ query: z.string().max(4000) }),
  z.strictObject({ clusters: z.array(ClusterName).min(1, "name at least one cluster").max(10_000) }),
]);

const common = {
  selection: Selection,
  strategy: RolloutStrategySchema.default(RolloutStrategySchema.parse({})),
  windows: RolloutWindowsSchema.optional(),
  dryRun: z.boolean().default(false),
};

export const RolloutRequestSchema = z
  .discriminatedUnion("kind", [
    z.strictObject({
      kind: z.literal("upgrade"),
      target: z.string().regex(/^\d+\.\d+\.\d+$/, "target must be a release such as 4.19.11"),
      acceptRisks: z.array(z.string().max(200)).max(50).default([]),
      ...common,
    }),
    z.strictObject({
      kind: z.literal("bundle"),
      bundle: z.string().regex(/^(sha256:)?[0-9a-f]{64}$/, "bundle must be a manifest's sha256 digest"),
      startUpgrade: z.boolean().default(false),
      unpinAfter: z.boolean().default(false),
      ...common,
    }),
    z.strictObject({
      kind: z.literal("acknowledgement"),
      /** One acknowledgement for every cluster: as a single request takes it, without the cluster. */
      acknowledgement: z
        .strictObject({ mode: z.string(), ocpVersion: z.string().optional(), rhcosVersion: z.string().optional(), evidence: z.string() })
        .superRefine((ack, ctx) => {
          const checked = AcknowledgementRequestSchema.safeParse({ ...ack, cluster: "each selected cluster" });
          if (!checked.success)
            for (const issue of checked.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
        }),
      ...common,
    }),
  ])
  .superRefine((request, ctx) => {
    if (request.kind === "bundle" && request.unpinAfter && !request.startUpgrade)
      ctx.addIssue({
        code: "custom",
        message: "unpinAfter needs startUpgrade: the images are unpinned once the upgrade the rollout started completes",
        path: ["unpinAfter"],
      });
    const { strategy } = request;
    if (strategy.mandatoryGroups.length && !strategy.groupBy)
      ctx.addIssue({
        code: "custom",
        message: "mandatoryGroups needs groupBy: the label whose values they are",
        path: ["strategy", "mandatoryGroups"],
      });
  });

export type RolloutRequest = z.output<typeof RolloutRequestSchema>;
