import { acknowledgementView, DecisionSchema, rejectAcknowledgement } from "@/server/acknowledgements/acknowledgements";
import { apiRoute, pathParams } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Reject with a comment (approver or admin, never the requester). */
export const POST = apiRoute({ access: ["approver"], params: pathParams("id"), body: DecisionSchema }, async ({ params, body, actor }) =>
  acknowledgementView(await rejectAcknowledgement(params.id, body.comment, actor)),
);
