import { z } from "zod";
import { UserFacingError } from "@/server/errors";
import { apiRoute } from "@/server/http/api";
import { listAudit } from "@/server/store/audit";

export const dynamic = "force-dynamic";

const Query = z.object({
  limit: z.coerce.number().int().min(1).max(500).optional(),
  before: z.string().regex(/^\d+$/, "before must be an event id").optional(),
  action: z.string().max(100).optional(),
});

export const GET = apiRoute({ access: ["admin", "approver"] }, async ({ request }) => {
  const parsed = Query.safeParse(Object.fromEntries(new URL(request.url).searchParams));
  if (!parsed.success) throw new UserFacingError(400, parsed.error.issues[0]!.message);
  return { events: await listAudit(parsed.data) };
});
