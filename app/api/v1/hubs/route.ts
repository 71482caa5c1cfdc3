import { hubSummaries, registerHub, RegisterHubSchema } from "@/server/hubs/hubs";
import { apiRoute, json } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** The registered ACM hubs with their sync status and cluster counts; no secret is ever sent. */
export const GET = apiRoute({ access: "any" }, async () => ({ hubs: await hubSummaries() }));

/** Register an ACM hub (admin): checked before it is saved; its clusters then arrive in the background. See docs/acm.md. */
export const POST = apiRoute({ access: ["admin"], body: RegisterHubSchema, maxBodyBytes: 256 * 1024 }, async ({ body, actor }) =>
  json({ hub: await registerHub(body, actor) }, { status: 201 }),
);
