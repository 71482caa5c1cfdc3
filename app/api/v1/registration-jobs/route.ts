import { BULK_MAX_BODY_BYTES, createRegistrationJob, CreateRegistrationJobSchema } from "@/server/clusters/bulk";
import { apiRoute, json } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Register many contexts of a kubeconfig in one go (admin): answers at once with the job; see docs/api.md. */
export const POST = apiRoute(
  { access: ["admin"], body: CreateRegistrationJobSchema, maxBodyBytes: BULK_MAX_BODY_BYTES },
  async ({ body, actor }) => json({ job: await createRegistrationJob(body, actor) }, { status: 202 }),
);
