import { acknowledgementCandidates } from "@/server/acknowledgements/acknowledgements";
import { ReleaseTargetQuery } from "@/server/fleet/query";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Clusters that need an acknowledgement; ?target=4.22.3 asks about a given release. */
export const GET = apiRoute({ access: "any", query: ReleaseTargetQuery }, async ({ query }) => ({
  clusters: await acknowledgementCandidates(query.target ?? null),
}));
