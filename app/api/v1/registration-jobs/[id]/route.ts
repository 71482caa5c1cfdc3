import { z } from "zod";
import { requireRegistrationJob } from "@/server/clusters/bulk";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** A registration job's progress: counts, and each context's status and reason (admin). */
export const GET = apiRoute(
  { access: ["admin"], params: z.object({ id: z.uuid("there is no such registration job") }) },
  async ({ params }) => ({ job: await requireRegistrationJob(params.id) }),
);
