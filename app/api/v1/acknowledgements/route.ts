import { acknowledgementView, listAcknowledgementViews, requestAcknowledgement } from "@/server/acknowledgements/acknowledgements";
import { acknowledgementEndpoints } from "@/server/acknowledgements/contract";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

export const GET = apiRoute(acknowledgementEndpoints.list, async ({ query, actor }) => ({
  acknowledgements: await listAcknowledgementViews(query.status, actor),
}));

export const POST = apiRoute(acknowledgementEndpoints.request, async ({ body, actor }) =>
  acknowledgementView(await requestAcknowledgement(body, actor), actor),
);
