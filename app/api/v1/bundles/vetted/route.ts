import { listVettedBundles, vetBundle } from "@/server/bundles/bundles";
import { bundleEndpoints } from "@/server/bundles/contract";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

export const GET = apiRoute(bundleEndpoints.vetted, async () => ({ vetted: await listVettedBundles() }));

export const POST = apiRoute(bundleEndpoints.vet, async ({ body, actor }) => ({ vetted: await vetBundle(body, actor) }));
