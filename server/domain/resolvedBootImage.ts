/*
 * What Fleetskew records about one MachineSet's boot image: where it boots from, what release that
 * is, how that is known, and what the MCO's boot image controller does with it. Worked out in
 * bootImages.ts; stored in every snapshot, so the schema is the one definition of the shape and the
 * types are inferred from it.
 */
import { z } from "zod";
import { BootImageReferenceSchema } from "./bootImageReference";

export const ProvenanceSchema = z.enum(["stream", "image-name", "catalog", "install-version", "unknown"]);
export type Provenance = z.output<typeof ProvenanceSchema>;

/**
 * What the MCO's boot image controller does with one MachineSet (`syncMAPIMachineSet`,
 * pkg/controller/bootimage/ms_helpers.go; §15.2):
 * - update: patched to the stream's image, or already on it;
 * - skip: "reconcileSkipped" — the MCO cannot update it and counts it as skipped, which resets the
 *   Automatic boot-image record to the install version;
 * - exclude: the MCO leaves it out on purpose (not enrolled, Windows, another OS stream, an
 *   architecture or security type it does not support); not counted as skipped;
 * - error: the sync fails; the controller goes Degraded with `error`, which blocks upgrades in Automatic mode.
 */
export const McoDecisionSchema = z.object({
  action: z.enum(["update", "skip", "exclude", "error"]),
  reason: z.string(),
  /** The error the MCO records (error only), as it appears in BootImageUpdateDegraded's message. */
  error: z.string().optional(),
  /**
   * "assumed": Fleetskew cannot see what decides it and assumes the outcome in `action` (see reason).
   * "unknown": Fleetskew cannot tell the outcome at all (`reason` says what it depends on); `action`
   * is then only the cautious reading, and predictions built on it say "unknown", never a verdict.
   */
  basis: z.enum(["observed", "assumed", "unknown"]).optional(),
  /**
   * What the MCO would write in BootImageUpdateDegraded should what Fleetskew cannot read fail (EC2,
   * a Secret): an error that blocks upgrades in Automatic mode. Its own words, as far as they are fixed.
   */
  ifFails: z.string().optional(),
  /** update only: the record the MCO writes for it instead of an OCP version (AWS Marketplace, `updateClusterBootImage`). */
  rhcosVersion: z.string().optional(),
  /** AWS: the compiled AMI list that decided (release-4.22's AllowedAMIs), named with its source commit. */
  amiList: z.string().optional(),
  /**
   * error only: the MCO's own code crashes here (a nil pointer dereference) rather than returning an
   * error, so it writes no Degraded message; `error` then says so in Fleetskew's words, quoting no MCO text.
   */
  crash: z.literal(true).optional(),
});
export type McoDecision = z.output<typeof McoDecisionSchema>;

export const ResolvedBootImageSchema = z.object({
  machineSet: z.string(),
  reference: BootImageReferenceSchema,
  /** The reference as one line, e.g. "ami-0a3f… (us-east-1)". */
  display: z.string(),
  /** The catalog key for this reference (platform-qualified), or null when there is nothing to look up. */
  key: z.string().nullable(),
  rhcosBuild: z.string().nullable(),
  ocpVersion: z.string().nullable(),
  provenance: ProvenanceSchema,
  /** Whether it is the image the cluster's stream currently names; null when that cannot be told. */
  matchesStream: z.boolean().nullable(),
  mco: McoDecisionSchema,
  notes: z.array(z.string()),
  /**
   * The template label `machine.openshift.io/os-id: Windows`: the MachineSet boots Windows, not RHCOS,
   * and the MCO leaves it out (ms_helpers.go `syncMAPIMachineSet`), so it takes no part in skew.
   * Missing from snapshots stored before Fleetskew read it.
   */
  windows: z.boolean().optional(),
});
export type ResolvedBootImage = z.output<typeof ResolvedBootImageSchema>;
