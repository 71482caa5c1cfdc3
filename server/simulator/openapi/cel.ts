import { celEnv, isCelError, parse, plan, type CelInput } from "@bufbuild/cel";
import { strings } from "@bufbuild/cel/ext";
import { RE2JS } from "@bufbuild/re2";

/*
 * The CEL of CRD validation rules (`x-kubernetes-validations`), as the Kubernetes API server
 * evaluates it (k8s.io/apiextensions-apiserver pkg/apiserver/schema/cel), on @bufbuild/cel: the
 * standard library with the strings extension, `self` (and `oldSelf` on updates) bound to the
 * schema node's value. Optional field selection (`self.?a.b.orValue(x)`, `.hasValue()`), which
 * Kubernetes enables and @bufbuild/cel 0.6 does not parse, is rewritten into the equivalent
 * `has()` chain before planning. Rules calling functions outside this set are unsupported: the
 * data files mark them and the simulator skips them (docs/simulator.md).
 */

/** Functions and macros a rule may call here (standard library, strings extension, macros). */
const SUPPORTED_FUNCTIONS = new Set([
  "has",
  "size",
  "matches",
  "startsWith",
  "endsWith",
  "contains",
  "exists",
  "exists_one",
  "all",
  "map",
  "filter",
  "int",
  "uint",
  "double",
  "string",
  "bool",
  "type",
  "duration",
  "timestamp",
  // strings extension
  "charAt",
  "indexOf",
  "lastIndexOf",
  "lowerAscii",
  "upperAscii",
  "replace",
  "split",
  "substring",
  "trim",
  "join",
  // optionals, rewritten before planning
  "orValue",
  "hasValue",
]);

/**
 * `matches()` with RE2 (as cel-go), each pattern compiled once: @bufbuild/cel compiles it on every
 * call, which made a 500-image PinnedImageSet take ~100 ms to validate.
 */
const patterns = new Map<string, RE2JS>();
const re2 = {
  compile(pattern: string) {
    let compiled = patterns.get(pattern);
    if (!compiled) patterns.set(pattern, (compiled = RE2JS.compile(pattern)));
    return compiled;
  },
};

const env = celEnv({ funcs: strings, re2 });

const IDENT = "[A-Za-z_][A-Za-z0-9_]*";
const OPTIONAL_CHAIN = new RegExp(
  `\\b(${IDENT}(?:\\.${IDENT})*)((?:\\.\\??${IDENT})*\\.\\?${IDENT}(?:\\.\\??${IDENT})*)\\.(orValue|hasValue)\\(`,
  "g",
);

/** The closing parenthesis matching the one just before `from`, skipping string literals. */
function closingParen(text: string, from: number): number {
  let depth = 1;
  for (let i = from; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      if (end < 0) return -1;
      i = end;
    } else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i;
  }
  return -1;
}

/**
 * `base.?a.b.orValue(x)` → `((has(base.a) && has(base.a.b)) ? base.a.b : x)`, and
 * `base.?a.b.hasValue()` → `(has(base.a) && has(base.a.b))`: selections after the first `.?` are
 * optional, so each must be present.
 */
export function desugarOptionals(rule: string): string {
  let out = rule;
  for (let guard = 0; guard < 50; guard++) {
    OPTIONAL_CHAIN.lastIndex = 0;
    const m = OPTIONAL_CHAIN.exec(out);
    if (!m) return out;
    const [whole, base, chain, method] = m as unknown as [string, string, string, "orValue" | "hasValue"];
    const argsStart = m.index + whole.length;
    const argsEnd = closingParen(out, argsStart);
    if (argsEnd < 0) return out;
    const segments = chain.split(/(?=\.)/).map((s) => s.slice(1));
    const firstOptional = segments.findIndex((s) => s.startsWith("?"));
    const names = segments.map((s) => s.replace(/^\?/, ""));
    let target = [base, ...names.slice(0, firstOptional)].join(".");
    const checks: string[] = [];
    for (const name of names.slice(firstOptional)) {
      target = `${target}.${name}`;
      checks.push(`has(${target})`);
    }
    const present = `(${checks.join(" && ")})`;
    const replacement = method === "hasValue" ? present : `(${present} ? ${target} : (${out.slice(argsStart, argsEnd)}))`;
    out = out.slice(0, m.index) + replacement + out.slice(argsEnd + 1);
  }
  return out;
}

/** Why a rule cannot be evaluated here, or undefined when it can. */
export function unsupportedReason(rule: string): string | undefined {
  const source = desugarOptionals(rule);
  const called = [...source.replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"/g, "''").matchAll(new RegExp(`(${IDENT})\\s*\\(`, "g"))].map(
    (m) => m[1]!,
  );
  const missing = [...new Set(called.filter((name) => !SUPPORTED_FUNCTIONS.has(name)))];
  if (missing.length) return `calls ${missing.join(", ")}`;
  if (/\.\?/.test(source)) return "optional selection outside a `.orValue()`/`.hasValue()` chain";
  try {
    parse(source);
  } catch (error) {
    return `does not parse: ${(error as Error).message}`;
  }
  return undefined;
}

export type CompiledRule = {
  usesOldSelf: boolean;
  eval: (bindings: { self: CelInput; oldSelf?: CelInput }) => { ok: true; value: unknown } | { ok: false; error: string };
};

const compiled = new Map<string, CompiledRule>();

/** cel-go's wording for the errors rules can meet at runtime, where @bufbuild/cel words them differently. */
const celGoMessage = (message: string) => message.replace(/^field not found: /, "no such key: ");

/** A rule planned once and kept; throws for one `unsupportedReason` would refuse. */
export function compileRule(rule: string): CompiledRule {
  let found = compiled.get(rule);
  if (found) return found;
  const program = plan(env, parse(desugarOptionals(rule)));
  found = {
    usesOldSelf: /\boldSelf\b/.test(rule),
    eval: (bindings) => {
      try {
        const value = program(bindings as Record<string, CelInput>);
        if (isCelError(value)) return { ok: false, error: celGoMessage(value.message) };
        return { ok: true, value };
      } catch (error) {
        return { ok: false, error: celGoMessage((error as Error).message) };
      }
    },
  };
  compiled.set(rule, found);
  return found;
}
