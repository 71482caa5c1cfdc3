import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as boot from "./bootImageCases";
import * as pinned from "./pinnedImageCases";

/** docs/openshift.md §23 states how many cases were transcribed from each upstream file; it must stay true. */
const doc = readFileSync(path.join(__dirname, "../../../docs/openshift.md"), "utf8");
const stated = (file: string) => Number(new RegExp(`\\| \`${file.replace(/[./]/g, "\\$&")}\` \\|[^|]*\\| (\\d+) \\|`).exec(doc)?.[1]);
const disruption = readFileSync(path.join(__dirname, "disruptionCases.test.ts"), "utf8");
const casesOf = (...letters: string[]) =>
  letters.reduce((n, l) => n + (disruption.match(new RegExp(`\\[\`\\$\\{${l}\\}`, "g")) ?? []).length, 0);

describe("docs/openshift.md §23 counts the transcribed cases", () => {
  it.each([
    ["pkg/operator/sync_test.go", boot.SYNC_MACHINE_CONFIGURATION.length],
    ["pkg/operator/status_test.go", boot.SKEW_GUARD.length],
    [
      "pkg/controller/bootimage/boot_image_controller_test.go",
      boot.ARCH_FROM_MACHINE_SET.length +
        boot.RECONCILE_AZURE.length +
        boot.RESET_CLUSTER_BOOT_IMAGE.length +
        boot.IS_CLUSTER_STABLE.length,
    ],
    ["pkg/daemon/update_test.go", casesOf("P", "C", "D", "R")],
    ["pkg/controller/common/reconcile_test.go", casesOf("I", "S")],
    [
      "pkg/daemon/pinned_image_set_test.go",
      pinned.CHECK_NODE_ALLOCATABLE_STORAGE.length + pinned.PREFETCH_IMAGE_SETS.length + pinned.ADD_EVENT_HANDLERS.length,
    ],
    ["pkg/controller/pinnedimageset/pinned_image_set_test.go", pinned.SYNC_HANDLER.length],
  ])("%s: %i cases", (file, count) => {
    expect(count).toBeGreaterThan(0);
    expect(stated(file)).toBe(count);
  });
});
