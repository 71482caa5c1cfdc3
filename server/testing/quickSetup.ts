/**
 * Setup of the quick test set (vitest project `unit`): no database. getDb() throws without
 * DATABASE_URL, and createTestDatabase() refuses while FLEETSKEW_QUICK_TESTS is set, so a test
 * that needs Postgres fails loudly here and has to be named `*.int.test.ts`.
 */
delete process.env.DATABASE_URL;
delete process.env.FLEETSKEW_TEST_DATABASE_URL;
delete process.env.FLEETSKEW_MIGRATION_DATABASE_URL;
process.env.FLEETSKEW_QUICK_TESTS = "1";
