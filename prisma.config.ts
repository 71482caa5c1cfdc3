import { defineConfig } from "prisma/config";

// Prisma's CLI is used only to generate the client here: migrations are SQL applied by
// server/store/migrate.ts, and the URL below matters only to tools that connect.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres" },
});
