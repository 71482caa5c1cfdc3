import { z } from "zod";
import { acknowledgementView, listAcknowledgementViews, requestAcknowledgement } from "@/server/acknowledgements/acknowledgements";
import { AcknowledgementRequestSchema } from "@/server/domain/acknowledgements";
import { UserFacingError } from "@/server/errors";
import { apiRoute, json } from "@/server/http/api";
import { ACK_STATUSES } from "@/server/store/acknowledgements";

export const dynamic = "force-dynamic";

const Status = z.enum(ACK_STATUSES, { error: `status must be one of ${ACK_STATUSES.join(", ")}` });

/** Requests, newest first; ?status=pending (or a comma-separated list) narrows them. */
export const GET = apiRoute({ access: "any" }, async ({ request }) => {
  const text = new URL(request.url).searchParams.get("status");
  const parsed = !text ? undefined : z.array(Status).safeParse(text.split(",").map((s) => s.trim()));
  if (parsed && !parsed.success) throw new UserFacingError(400, parsed.error.issues[0]!.message);
  return { acknowledgements: await listAcknowledgementViews(parsed?.data) };
});

/** Request an acknowledgement (technician or admin). */
export const POST = apiRoute({ access: ["technician"], body: AcknowledgementRequestSchema }, async ({ body, actor }) =>
  json(await acknowledgementView(await requestAcknowledgement(body, actor)), { status: 201 }),
);
