import {
  AckListQuerySchema,
  acknowledgementView,
  listAcknowledgementViews,
  requestAcknowledgement,
} from "@/server/acknowledgements/acknowledgements";
import { AcknowledgementRequestSchema } from "@/server/domain/acknowledgements";
import { apiRoute, json } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Requests, newest first; ?status=pending (or a comma-separated list) narrows them. */
export const GET = apiRoute({ access: "any", query: AckListQuerySchema }, async ({ query }) => ({
  acknowledgements: await listAcknowledgementViews(query.status),
}));

/** Request an acknowledgement (technician or admin). */
export const POST = apiRoute({ access: ["technician"], body: AcknowledgementRequestSchema }, async ({ body, actor }) =>
  json(await acknowledgementView(await requestAcknowledgement(body, actor)), { status: 201 }),
);
