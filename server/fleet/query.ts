/**
 * The query strings of the fleet's read routes, checked at the HTTP edge: the features below take
 * the parsed values and never answer a 400 themselves.
 */

export {
  CLUSTER_TIMELINE_DAYS,
  FLEET_TIMELINE_DAYS,
  ReadinessQuery,
  timeWindow,
  timeWindowQuery,
  type TimeWindow,
} from "./contract";
