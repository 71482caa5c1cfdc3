import { acknowledgementView, approveAcknowledgement, DecisionSchema } from "@/server/acknowledgements/acknowledgements";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Approve (approver or admin, never the requester): the value is then written to the cluster and checked. */
export const POST = apiRoute<{ id: string }, typeof DecisionSchema>(
  { access: ["approver"], body: DecisionSchema },
  async ({ params, body, user, ip }) => acknowledgementView(await approveAcknowledgement(params.id, body.comment, { user: user!, ip })),
);
