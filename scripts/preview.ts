/**
 * `npm run --silent preview -- --from OLD --to NEW [--policy MC_CONFIGURATION] [--first-boot] [--format json|text]`:
 * the same as `npx fleetskew preview …` (cli/preview.ts).
 */
import { runPreview } from "../cli/preview";

process.exitCode = runPreview(process.argv.slice(2));
