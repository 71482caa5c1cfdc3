/**
 * What the acknowledgement endpoints of /api/v1 take and send, defined once: route handlers and the
 * feature functions use these, components import them with `import type`.
 */
import type { z } from "zod";
import type { AckMode, AcknowledgementRequestSchema } from "../domain/acknowledgements";
import type { AckStatus } from "../store/acknowledgements";
import type { AcknowledgementView, Candidate, DecisionSchema } from "./acknowledgements";

export type { AckMode, AckStatus, AcknowledgementView, Candidate };

/** GET /api/v1/acknowledgements (?status=) */
export type AcknowledgementList = { acknowledgements: AcknowledgementView[] };
/** POST /api/v1/acknowledgements; answered with the AcknowledgementView */
export type AcknowledgementRequestBody = z.input<typeof AcknowledgementRequestSchema>;
/** POST /api/v1/acknowledgements/{id}/approve and …/reject; answered with the AcknowledgementView */
export type DecisionRequest = z.input<typeof DecisionSchema>;
/** GET /api/v1/acknowledgements/candidates (?target=) */
export type CandidateList = { clusters: Candidate[] };
