import { acknowledgementCandidates } from "@/server/acknowledgements/acknowledgements";
import { acknowledgementEndpoints } from "@/server/acknowledgements/contract";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

export const GET = apiRoute(acknowledgementEndpoints.candidates, async ({ query }) => ({
  clusters: await acknowledgementCandidates(query.target ?? null),
}));
