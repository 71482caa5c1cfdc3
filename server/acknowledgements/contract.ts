/**
 * What the boot-image acknowledgement endpoints of /api/v1 take and send, defined once: route
 * handlers bind to these endpoints, the browser calls them, the OpenAPI document is made from them.
 * Imports zod and pure modules only, so the browser may import it.
 */
import { z } from "zod";
import { ACK_MODES, ACK_STATUSES, AcknowledgementRequestSchema, type AckMode, type AckStatus } from "../domain/acknowledgements";
import { parseOcpVersion } from "../domain/versions";
import { endpoint, isoDate } from "../http/endpoint";
import { SkewAssessment } from "../fleet/contract";

export { AcknowledgementRequestSchema };
export type { AckMode, AckStatus };

const AckStatusSchema = z.enum(ACK_STATUSES, { error: `status must be one of ${ACK_STATUSES.join(", ")}` });

/** ?status=pending, or a comma-separated list such as pending,applying; absent or empty asks for every status. */
export const AckListQuerySchema = z.object({
  status: z
    .string()
    .transform((text) => text.split(",").map((s) => s.trim()))
    .pipe(z.array(AckStatusSchema))
    .optional(),
});

/** ?target=4.22.3: a release (x.y.z); absent means each cluster's next release that enforces the skew limit. */
export const AckCandidatesQuery = z.object({
  target: z
    .string()
    .trim()
    .refine((t) => parseOcpVersion(t) !== null, {
      error: (issue) => `must be a release like 4.22.3, not "${String(issue.input).slice(0, 40)}"`,
    })
    .optional(),
});

export const DecisionSchema = z.strictObject({
  comment: z.string().trim().max(2000, "the comment may be at most 2000 characters").default(""),
});

/** POST /api/v1/acknowledgements */
export type AcknowledgementRequestBody = z.input<typeof AcknowledgementRequestSchema>;
/** POST /api/v1/acknowledgements/{id}/approve and …/reject */
export type DecisionRequest = z.input<typeof DecisionSchema>;

const nullableIso = () => isoDate().nullable();

/** One request, as everyone signed in sees it: the value asked for, the decision, what the cluster made of it. */
export const AcknowledgementSchema = z
  .strictObject({
    id: z.string(),
    clusterId: z.string(),
    cluster: z.string(),
    mode: z.enum(ACK_MODES),
    ocpVersion: z.string().nullable(),
    rhcosVersion: z.string().nullable(),
    evidence: z.string(),
    machineSets: z.array(z.string()),
    status: z.enum(ACK_STATUSES),
    requestedById: z.string(),
    requestedBy: z.string(),
    requestedAt: isoDate(),
    expiresAt: isoDate(),
    baseline: z
      .looseObject({
        mode: z.string(),
        manual: z
          .looseObject({ mode: z.string().nullish(), ocpVersion: z.string().nullish(), rhcosVersion: z.string().nullish() })
          .nullish(),
      })
      .nullable()
      .meta({
        description: "spec.bootImageSkewEnforcement as the cluster had it when the request was made (the write is conditional on it)",
      }),
    decidedBy: z.string().nullable(),
    decidedAt: nullableIso(),
    comment: z.string().nullable(),
    result: z.string().nullable().meta({ description: "What the write and the MCO made of it, in words" }),
    appliedAt: nullableIso(),
    verifiedAt: nullableIso(),
    release: z.string().nullable().meta({ description: "The release the cluster runs" }),
    prediction: z
      .strictObject({ upgradeable: z.boolean(), release: z.string().nullable(), message: z.string() })
      .meta({ description: "What machine-config's Upgradeable will say once the value is in status" }),
    mayDecide: z.boolean().meta({
      description:
        "Whether the reader holds approver over its cluster and did not request it: approving or rejecting will not be refused for who they are",
    }),
  })
  .meta({ id: "Acknowledgement" });
export type AcknowledgementView = z.output<typeof AcknowledgementSchema>;

/** A cluster that needs an acknowledgement, at its next enforcing release or the one asked about. */
export const AckCandidateSchema = z
  .strictObject({
    cluster: z.string(),
    version: z.string().nullable(),
    release: z.string().meta({ description: "The release the assessment is for" }),
    reason: z.enum(["below-limit", "install-version-fallback"]),
    detail: z.string(),
    assessment: SkewAssessment,
    served: z.boolean().meta({ description: "The cluster's API has spec.bootImageSkewEnforcement" }),
    pending: z.strictObject({ id: z.string(), requestedBy: z.string() }).nullable(),
    machineSets: z.array(z.strictObject({ name: z.string(), bootImage: z.string().nullable() })),
  })
  .meta({ id: "AckCandidate" });
export type Candidate = z.output<typeof AckCandidateSchema>;

const AckParams = z.object({ id: z.string().min(1) });

export const acknowledgementEndpoints = {
  list: endpoint({
    method: "GET",
    path: "/api/v1/acknowledgements",
    summary: "Acknowledgement requests, newest first",
    description: "`?status=pending` (or a comma-separated list) narrows them; at most 500 are sent.",
    access: "any",
    query: AckListQuerySchema,
    answer: z.strictObject({ acknowledgements: z.array(AcknowledgementSchema) }),
  }),
  request: endpoint({
    method: "POST",
    path: "/api/v1/acknowledgements",
    summary: "Request a boot-image acknowledgement for a cluster; nothing is sent to the cluster yet",
    description:
      "The value follows the MachineConfiguration API's own rules. A cluster whose API has no bootImageSkewEnforcement, one not read yet, and a second open request for a cluster are refused with 409.",
    access: ["technician"],
    body: AcknowledgementRequestSchema,
    status: 201,
    errors: [409],
    answer: AcknowledgementSchema,
  }),
  candidates: endpoint({
    method: "GET",
    path: "/api/v1/acknowledgements/candidates",
    summary: "Clusters that need an acknowledgement, at their next enforcing release or at ?target=",
    access: "any",
    query: AckCandidatesQuery,
    answer: z.strictObject({ clusters: z.array(AckCandidateSchema) }),
  }),
  approve: endpoint({
    method: "POST",
    path: "/api/v1/acknowledgements/{id}/approve",
    summary: "Approve a request: the value is written to the cluster and checked",
    description:
      "Never by the requester (403, an admin too). 409 when the request is no longer pending or expired. A write the cluster refuses is answered 200 with the request marked failed.",
    access: ["approver"],
    personOnly: "decide an acknowledgement",
    params: AckParams,
    body: DecisionSchema,
    errors: [409],
    answer: AcknowledgementSchema,
  }),
  reject: endpoint({
    method: "POST",
    path: "/api/v1/acknowledgements/{id}/reject",
    summary: "Reject a request, saying why",
    description: "Never by the requester (403, an admin too); a comment of at least 3 characters; 409 when no longer pending.",
    access: ["approver"],
    personOnly: "decide an acknowledgement",
    params: AckParams,
    body: DecisionSchema,
    errors: [409],
    answer: AcknowledgementSchema,
  }),
};

export type AcknowledgementList = z.output<typeof acknowledgementEndpoints.list.answer>;
export type CandidateList = z.output<typeof acknowledgementEndpoints.candidates.answer>;
