/**
 * The endpoints that belong to no feature: health, for load balancers, and the OpenAPI document.
 * Imports zod and pure modules only, so the browser may import it.
 */
import { z } from "zod";
import { endpoint } from "./endpoint";

const DatabaseMode = z.enum(["postgres", "embedded"]);

export const HealthAnswer = z.discriminatedUnion("status", [
  z.strictObject({ status: z.literal("ok"), database: DatabaseMode, migrations: z.number().int() }),
  z.strictObject({ status: z.literal("unavailable"), database: DatabaseMode, reason: z.string() }),
]);
export type Health = z.output<typeof HealthAnswer>;

export const httpEndpoints = {
  health: endpoint({
    method: "GET",
    path: "/api/health",
    summary: "Whether the console can serve (for load balancers and probes)",
    description: "503 with status `unavailable` when the database cannot be reached; the answer names no address, user or error text.",
    access: "public",
    answer: HealthAnswer,
  }),
  openapi: endpoint({
    method: "GET",
    path: "/api/v1/openapi.json",
    summary: "This document",
    access: "public",
    answer: z.record(z.string(), z.unknown()).meta({ description: "An OpenAPI 3.1 document" }),
  }),
};
