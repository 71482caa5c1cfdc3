/**
 * A process that does nothing but run the rollout runner's tick, again and again, on the database in
 * DATABASE_URL: the tests kill it with SIGKILL mid-wave and start another, as an operator's node
 * failure would, to check no step is written twice.
 */
import { advanceRollouts, DEFAULT_RUNNER_OPTIONS } from "../rollouts/runner";

/** A test that kills runners sets a short claim lease, so the next runner takes over the killed one's claims soon. */
const leaseMs = Number(process.env.FLEETSKEW_TEST_CLAIM_LEASE_MS) || DEFAULT_RUNNER_OPTIONS.leaseMs;

async function main() {
  for (;;) {
    await advanceRollouts(new Date(), { ...DEFAULT_RUNNER_OPTIONS, leaseMs });
    await new Promise((r) => setTimeout(r, 50));
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
