/**
 * Every endpoint of /api, collected from the features' contracts: the OpenAPI document is made
 * from this list, and a test checks it against the route files under app/api (both ways).
 */
import { userEndpoints } from "../auth/contract";
import { acknowledgementEndpoints } from "../acknowledgements/contract";
import { bundleEndpoints } from "../bundles/contract";
import { hubEndpoints } from "../hubs/contract";
import { httpEndpoints } from "./contract";
import type { Endpoint } from "./endpoint";

const groups: Record<string, Record<string, Endpoint>> = {
  httpEndpoints,
  userEndpoints,
  hubEndpoints,
  acknowledgementEndpoints,
  bundleEndpoints,
};

export const allEndpoints: readonly Endpoint[] = Object.values(groups).flatMap((group) => Object.values(group));
