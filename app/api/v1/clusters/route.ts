import { clusterAdminEndpoints } from "@/server/clusters/contract";
import { registerCluster } from "@/server/clusters/registration";
import { fleetEndpoints, type ClusterList } from "@/server/fleet/contract";
import { fleetPage } from "@/server/fleet/fleetPage";
import { reachKey, readReach } from "@/server/domain/grants";
import { answerKey, sharedAnswer } from "@/server/fleet/sharedAnswers";
import { apiRoute } from "@/server/http/api";
import { etagged, etaggedResponse } from "@/server/http/etag";

export const dynamic = "force-dynamic";

/**
 * One window of the fleet: filtered, sorted and paged in the database (from the store; no cluster is
 * contacted), with the count of matching clusters and the cursor of the next window. The same window
 * asked for by many people at once is read once (server/fleet/sharedAnswers.ts); an unchanged window
 * answers 304 to If-None-Match.
 */
export const GET = apiRoute(fleetEndpoints.list, async ({ request, query, user, actor }) => {
  // Admins see API URLs, everyone else does not; each reader sees the part of the fleet their grants
  // reach: answers are shared only between readers of the same kind and reach.
  const apiUrls = user.role === "admin";
  const reach = readReach(actor.held);
  return etaggedResponse(
    request,
    await sharedAnswer(answerKey(`${apiUrls ? "clusters.json:admin" : "clusters.json"} ${reachKey(reach)}`, query), async () =>
      etagged((await fleetPage(query, { apiUrls, reach })) satisfies ClusterList),
    ),
  );
});

/** Register a cluster (admin): tests the connection, stores the credentials encrypted. */
export const POST = apiRoute(clusterAdminEndpoints.register, async ({ body, actor }) => registerCluster(body, actor));
