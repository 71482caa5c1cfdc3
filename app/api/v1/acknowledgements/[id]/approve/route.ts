import { acknowledgementView, approveAcknowledgement, DecisionSchema } from "@/server/acknowledgements/acknowledgements";
import { apiRoute, pathParams } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Approve (approver or admin, never the requester): the value is then written to the cluster and checked. */
export const POST = apiRoute({ access: ["approver"], params: pathParams("id"), body: DecisionSchema }, async ({ params, body, actor }) =>
  acknowledgementView(await approveAcknowledgement(params.id, body.comment, actor)),
);
