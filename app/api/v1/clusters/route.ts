import { apiRoute } from "@/server/http/api";
import { listClusterSummaries } from "@/server/store/clusters";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ access: "any" }, async () => ({ clusters: await listClusterSummaries() }));
