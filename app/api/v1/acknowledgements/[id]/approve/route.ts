import { acknowledgementView, approveAcknowledgement } from "@/server/acknowledgements/acknowledgements";
import { acknowledgementEndpoints } from "@/server/acknowledgements/contract";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

export const POST = apiRoute(acknowledgementEndpoints.approve, async ({ params, body, actor }) =>
  acknowledgementView(await approveAcknowledgement(params.id, body.comment, actor), actor),
);
