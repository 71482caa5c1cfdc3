/**
 * `fleetskew preview --from OLD --to NEW [--policy MC_CONFIGURATION] [--first-boot] [--format json|text]`
 * (also `npm run --silent preview -- …`, scripts/preview.ts): what a node does when its rendered
 * MachineConfig changes from OLD to NEW, worked out locally. Input that cannot be read exits 1 with
 * {"error": "..."} on stdout; nothing is guessed.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { previewDisruption, type Preview } from "../server/domain/disruption/engine";
import { MachineConfigError, parseManifest, readMachineConfig } from "../server/domain/disruption/machineConfig";
import { describeAction, effectivePolicies } from "../server/domain/disruption/policy";
import { RegistriesConfError } from "../server/domain/disruption/registries";

class InputError extends Error {}

/** npm runs scripts from the package root and puts the directory the user ran it from in INIT_CWD. */
const resolveInput = (file: string) => path.resolve(process.env.INIT_CWD || process.cwd(), file);

function readDocument(file: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new InputError(
      `cannot read ${what} ${file}: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message}`,
    );
  }
  const parsed = parseManifest(text);
  if (!parsed.ok) throw new InputError(`${what} ${file} ${parsed.error}`);
  return parsed.value;
}

function text(p: Preview): string {
  const lines: string[] = [];
  if (p.unreconcilable.length) {
    lines.push("Refused: the MCO would not apply this change.", ...p.unreconcilable.map((r) => `  - ${r}`));
    return lines.join("\n");
  }
  lines.push(`Actions: ${p.actions.map(describeAction).join(", ") || "none (nothing runs)"}`);
  lines.push(`Drain: ${p.drain ? `yes (${p.drainReason})` : "no"}`);
  lines.push(`Decision path: ${p.path === "legacy" ? "legacy rules (first boot / HyperShift)" : "node disruption policies"}`);
  if (p.changes.length) {
    lines.push("Changes:");
    for (const c of p.changes) lines.push(`  ${c.change.padEnd(8)} ${c.kind.padEnd(5)} ${c.name}\n           → ${c.decidedBy}`);
  }
  if (p.imageMode) lines.push(`Image mode: ${p.imageMode.note}`);
  for (const w of p.warnings) if (w !== p.imageMode?.note) lines.push(`Note: ${w}`);
  return lines.join("\n");
}

function previewCommand(args: string[], out: (line: string) => void): number {
  const { values } = parseArgs({
    args,
    options: {
      from: { type: "string" },
      to: { type: "string" },
      policy: { type: "string" },
      "first-boot": { type: "boolean", default: false },
      format: { type: "string", default: "json" },
    },
    strict: true,
  });
  if (!values.from || !values.to)
    throw new InputError("usage: preview --from OLD --to NEW [--policy MC_CONFIGURATION] [--first-boot] [--format json|text]");
  if (values.format !== "json" && values.format !== "text") throw new InputError("--format must be json or text");
  const fromFile = resolveInput(values.from);
  const toFile = resolveInput(values.to);
  const from = readMachineConfig(readDocument(fromFile, "--from"), fromFile);
  const to = readMachineConfig(readDocument(toFile, "--to"), toFile);
  const warnings: string[] = [];
  let policyDoc: unknown = null;
  if (values.policy) {
    const policyFile = resolveInput(values.policy);
    policyDoc = readDocument(policyFile, "--policy");
    if ((policyDoc as { kind?: unknown })?.kind !== "MachineConfiguration")
      throw new InputError(`--policy ${policyFile} is not a MachineConfiguration`);
    // §7: the MCO reads only MachineConfiguration/cluster, and admission refuses any other name.
    const name = (policyDoc as { metadata?: { name?: unknown } }).metadata?.name;
    if (name !== "cluster")
      throw new InputError(
        `--policy ${policyFile} is the MachineConfiguration ${typeof name === "string" ? JSON.stringify(name) : "without a name"}; only the one named "cluster" is used by the MCO (§7)`,
      );
  }
  const { policies, source, invalid } = effectivePolicies(policyDoc, warnings);
  if (invalid.length > 0)
    throw new InputError(`--policy ${resolveInput(values.policy!)} is not a valid MachineConfiguration (§8): ${invalid.join("; ")}`);
  const overrides = ((policyDoc as { spec?: { irreconcilableValidationOverrides?: { storage?: unknown } } } | null)?.spec
    ?.irreconcilableValidationOverrides?.storage ?? []) as never[];
  const preview = previewDisruption(from, to, {
    policies,
    policySource: source,
    firstBoot: values["first-boot"],
    storageOverrides: overrides,
  });
  preview.warnings.unshift(...warnings);
  if (values.format === "text") out(text(preview));
  else {
    const { actions, reboot, drain, unreconcilable, changes } = preview;
    out(JSON.stringify({ actions, reboot, drain, unreconcilable, changes, warnings: preview.warnings }));
  }
  return 0;
}

/** Runs the preview over `args` (the words after `preview`) and answers the exit code: 0, or 1 for input that cannot be read. */
export function runPreview(args: string[], out: (line: string) => void = (line) => console.log(line)): number {
  try {
    return previewCommand(args, out);
  } catch (error) {
    if (
      error instanceof InputError ||
      error instanceof MachineConfigError ||
      error instanceof RegistriesConfError ||
      (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")
    ) {
      out(JSON.stringify({ error: (error as Error).message }));
      return 1;
    }
    throw error;
  }
}
