import { acknowledgementCandidates } from "@/server/acknowledgements/acknowledgements";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Clusters that need an acknowledgement; ?target=4.22.3 asks about a given release. */
export const GET = apiRoute({ access: "any" }, async ({ request }) => ({
  clusters: await acknowledgementCandidates(new URL(request.url).searchParams.get("target")?.trim() || null),
}));
