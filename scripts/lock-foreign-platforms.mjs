// Adds other platforms' optional native packages to package-lock.json.
//
// Some registries (the one our build machines use among them) serve only the packages for the
// machine's own platform, so `npm install` leaves e.g. @next/swc-darwin-arm64 out of the lockfile,
// and `npm ci` then refuses the lockfile as out of sync. A lockfile made against the full registry
// lists them as optional entries with their os/cpu, which npm skips on other platforms without
// downloading anything. This writes those entries. Run it after `npm install` changes the lockfile.
import { readFileSync, writeFileSync } from "node:fs";

const LOCK = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(LOCK, "utf8"));

/** os/cpu from the platform suffix that native packages use in their names. */
function platformOf(name) {
  const suffix = name.split("/").pop();
  const os = ["android", "darwin", "freebsd", "linux", "win32", "openbsd", "sunos", "aix", "netbsd", "openharmony"].find((o) =>
    suffix.includes(`-${o}-`),
  );
  const cpu = ["arm64", "x64", "ia32", "arm", "ppc64", "s390x", "riscv64", "loong64", "wasm32"].find((c) =>
    new RegExp(`-${c}(-|$)`).test(suffix),
  );
  if (cpu === "wasm32") return { cpu: ["wasm32"] };
  if (!os || !cpu) return null;
  return { os: [os], cpu: [cpu] };
}

let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = `${path ? `${path}/` : ""}node_modules/${dep}`;
    if (lock.packages[nested] || lock.packages[`node_modules/${dep}`]) continue;
    const platform = platformOf(dep);
    if (!platform) continue;
    lock.packages[`node_modules/${dep}`] = { version, ...platform, optional: true, ...(entry.dev ? { dev: true } : {}) };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))));
writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: ${added} optional package(s) for other platforms listed`);
