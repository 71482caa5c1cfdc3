import { plainRoute } from "@/server/http/api";
import { httpEndpoints } from "@/server/http/contract";
import { openApiDocument } from "@/server/api/openapiDocument";

export const dynamic = "force-dynamic";

/** The OpenAPI 3.1 document, made from the contracts' endpoints; public, as the API's shape is no secret. */
export const GET = plainRoute(httpEndpoints.openapi, async () =>
  Response.json(openApiDocument(), { headers: { "cache-control": "public, max-age=300" } }),
);
