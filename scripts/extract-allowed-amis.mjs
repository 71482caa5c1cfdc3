// Writes the MCO's compiled list of AMIs its boot image controller may replace (`AllowedAMIs` in
// openshift/machine-config-operator pkg/controller/bootimage/ami.go) as a JSON data file, with the
// commit it was read from, for server/domain/awsAllowedAmis.ts and the simulated MCO.
//
// Usage, from a clone of openshift/machine-config-operator:
//   git show <branch>:pkg/controller/bootimage/ami.go | \
//     node scripts/extract-allowed-amis.mjs --branch <branch> --commit "$(git rev-parse <branch>)" \
//       --file-commit "$(git log -1 --format=%H <branch> -- pkg/controller/bootimage/ami.go)" \
//       > data/mco/allowed-amis-<branch>.json
// It refuses a file whose AllowedAMIs it cannot find, or one holding anything but AMI IDs.
import { readFileSync } from "node:fs";

const args = new Map();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i].replace(/^--/, ""), process.argv[i + 1]);
for (const required of ["branch", "commit", "file-commit"])
  if (!args.get(required)) {
    console.error(`--${required} is required`);
    process.exit(2);
  }

const go = readFileSync(0, "utf8");
const start = go.indexOf("var AllowedAMIs = sets.New(");
const end = start < 0 ? -1 : go.indexOf("\n)", start);
if (start < 0 || end < 0) {
  console.error("no `var AllowedAMIs = sets.New(` … `)` block in the input");
  process.exit(1);
}
const body = go.slice(go.indexOf("(", start) + 1, end);
const literals = [...body.matchAll(/"([^"]*)"/g)].map((m) => m[1]);
const leftover = body.replace(/"[^"]*"/g, "").replace(/[\s,]/g, "");
const bad = literals.filter((ami) => !/^ami-[0-9a-f]{8,17}$/.test(ami));
if (leftover || bad.length || literals.length === 0) {
  console.error(`unexpected content in AllowedAMIs: ${leftover.slice(0, 80) || bad.slice(0, 5).join(", ") || "no AMIs"}`);
  process.exit(1);
}
const amis = [...new Set(literals)].sort();
const source = {
  repository: "openshift/machine-config-operator",
  branch: args.get("branch"),
  commit: args.get("commit"),
  path: "pkg/controller/bootimage/ami.go",
  fileCommit: args.get("file-commit"),
  variable: "AllowedAMIs",
  upstreamSource: (/source URI = (\S+)/.exec(go) ?? [])[1] ?? null,
};
process.stdout.write(
  `${JSON.stringify({ source, count: amis.length, amis }, null, 0).replace('"amis":[', '"amis":[\n').replace(/","/g, '",\n"')}\n`,
);
