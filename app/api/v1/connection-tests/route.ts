import { z } from "zod";
import { CredentialSourceSchema, testCredentials } from "@/server/clusters/registration";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Test credentials before registering them; nothing is stored but the audit event. */
export const POST = apiRoute(
  { access: ["admin"], body: z.object({ source: CredentialSourceSchema }), maxBodyBytes: 600 * 1024 },
  async ({ body, actor }) => ({ report: await testCredentials(body.source, actor) }),
);
