import { acknowledgementView, DecisionSchema, rejectAcknowledgement } from "@/server/acknowledgements/acknowledgements";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Reject with a comment (approver or admin, never the requester). */
export const POST = apiRoute<{ id: string }, typeof DecisionSchema>(
  { access: ["approver"], body: DecisionSchema },
  async ({ params, body, user, ip }) => acknowledgementView(await rejectAcknowledgement(params.id, body.comment, { user: user!, ip })),
);
