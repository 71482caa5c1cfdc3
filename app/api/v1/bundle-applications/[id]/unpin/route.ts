import { bundleEndpoints } from "@/server/bundles/contract";
import { unpin } from "@/server/bundles/unpin";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

export const POST = apiRoute(bundleEndpoints.unpin, async ({ params, actor }) => ({ application: await unpin(params.id, actor) }));
