import { acknowledgementCandidates } from "@/server/acknowledgements/acknowledgements";
import { acknowledgementEndpoints } from "@/server/acknowledgements/contract";
import { readReach } from "@/server/domain/grants";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

export const GET = apiRoute(acknowledgementEndpoints.candidates, async ({ query, actor }) => ({
  clusters: await acknowledgementCandidates(query.target ?? null, readReach(actor.held)),
}));
