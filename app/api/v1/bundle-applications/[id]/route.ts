import { bundleEndpoints } from "@/server/bundles/contract";
import { applicationProgress } from "@/server/bundles/progress";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

export const GET = apiRoute(bundleEndpoints.application, async ({ params, actor }) => applicationProgress(params.id, actor));
