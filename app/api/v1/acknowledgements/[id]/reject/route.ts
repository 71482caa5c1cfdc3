import { acknowledgementView, rejectAcknowledgement } from "@/server/acknowledgements/acknowledgements";
import { acknowledgementEndpoints } from "@/server/acknowledgements/contract";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

export const POST = apiRoute(acknowledgementEndpoints.reject, async ({ params, body, actor }) =>
  acknowledgementView(await rejectAcknowledgement(params.id, body.comment, actor), actor),
);
