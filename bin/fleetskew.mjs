#!/usr/bin/env node
// `npx fleetskew …`: the command line is TypeScript (cli/), run through tsx as the rest of the
// project is (both of its loaders, as the `tsx` command installs them); tsx is a runtime
// dependency, so this works after `npm install` with or without dev dependencies.
import { register as registerCommonJs } from "tsx/cjs/api";
import { register as registerModules } from "tsx/esm/api";

registerCommonJs();
registerModules();
await import("../cli/fleetskew.ts");
