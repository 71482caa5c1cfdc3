/**
 * A process that does nothing but run the rollout runner's tick, again and again, on the database in
 * DATABASE_URL: the tests kill it with SIGKILL mid-wave and start another, as an operator's node
 * failure would, to check no step is written twice.
 */
import { advanceRollouts } from "../rollouts/runner";

async function main() {
  for (;;) {
    await advanceRollouts();
    await new Promise((r) => setTimeout(r, 50));
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
