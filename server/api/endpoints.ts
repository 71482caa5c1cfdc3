/**
 * Every endpoint of /api, collected from the features' contracts: the OpenAPI document is made
 * from this list, and a test checks it against the route files under app/api (both ways).
 */
import { acknowledgementEndpoints } from "../acknowledgements/contract";
import { alertEndpoints } from "../alerts/contract";
import { auditEndpoints } from "../audit/contract";
import { sessionEndpoints, signInSettingsEndpoints, userEndpoints } from "../auth/contract";
import { bundleEndpoints } from "../bundles/contract";
import { clusterAdminEndpoints } from "../clusters/contract";
import { fleetEndpoints } from "../fleet/contract";
import { hubEndpoints } from "../hubs/contract";
import { previewEndpoints } from "../preview/contract";
import { rolloutEndpoints } from "../rollouts/contract";
import { httpEndpoints } from "../http/contract";
import { serviceAccountEndpoints, tokenEndpoints } from "../tokens/contract";
import type { Endpoint } from "../http/endpoint";

const groups: Record<string, Record<string, Endpoint>> = {
  auditEndpoints,
  fleetEndpoints,
  previewEndpoints,
  httpEndpoints,
  userEndpoints,
  clusterAdminEndpoints,
  sessionEndpoints,
  signInSettingsEndpoints,
  rolloutEndpoints,
  hubEndpoints,
  acknowledgementEndpoints,
  bundleEndpoints,
  alertEndpoints,
  tokenEndpoints,
  serviceAccountEndpoints,
};

export const allEndpoints: readonly Endpoint[] = Object.values(groups).flatMap((group) => Object.values(group));
