import path from "node:path";
import { duplicateEntries } from "./ignitionDuplicates";

/**
 * A MachineConfig's Ignition config as the MCO holds it after `ParseAndConvertConfig`
 * (pkg/controller/common/helpers.go; docs/openshift.md §3.1): parsed into the Go types of the config's
 * own spec version — so a key that version does not know is dropped — then translated up to spec
 * 3.5.0 (coreos/ignition config/v3_N/translate; spec 2.x through the MCO's ignition_converter.go and
 * coreos/ign-converter v23tov30). Only the sections the MCO compares are rebuilt; the rest are kept.
 */
type Obj = Record<string, unknown>;
export const IGNITION_SPEC = "3.5.0";

export type ConvertedIgnition = { ok: true; config: Obj; from: string | null } | { ok: false; error: string };

const isObj = (v: unknown): v is Obj => !!v && typeof v === "object" && !Array.isArray(v);

/** coreos/go-semver: MAJOR.MINOR.PATCH with optional pre-release and build metadata. */
const SEMVER = /^(\d+)\.(\d+)\.(\d+)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

/** The keys each Go type of config/v3_N/types/schema.go has, from the spec version that added them on. */
type Shape = { [key: string]: { since?: number; shape?: Shape | "list-of"; item?: Shape } };
const since = (n: number, rest: Shape[string] = {}): Shape[string] => ({ since: n, ...rest });
const NODE_PART: Shape = { id: {}, name: {} };
const RESOURCE: Shape = {
  compression: {},
  source: {},
  verification: { shape: { hash: {} } },
  httpHeaders: since(1, { item: { name: {}, value: {} } }),
};
const NODE: Shape = { path: {}, overwrite: {}, user: { shape: NODE_PART }, group: { shape: NODE_PART } };
const SHAPE: Shape = {
  ignition: {},
  kernelArguments: since(3, { shape: { shouldExist: {}, shouldNotExist: {} } }),
  passwd: {
    shape: {
      users: {
        item: {
          name: {},
          gecos: {},
          groups: {},
          homeDir: {},
          noCreateHome: {},
          noLogInit: {},
          noUserGroup: {},
          passwordHash: {},
          primaryGroup: {},
          sshAuthorizedKeys: {},
          shell: {},
          shouldExist: since(2),
          system: {},
          uid: {},
        },
      },
      groups: { item: { name: {}, gid: {}, passwordHash: {}, shouldExist: since(2), system: {} } },
    },
  },
  storage: {
    shape: {
      files: { item: { ...NODE, append: { item: RESOURCE }, contents: { shape: RESOURCE }, mode: {} } },
      directories: { item: { ...NODE, mode: {} } },
      links: { item: { ...NODE, hard: {}, target: {} } },
      disks: {
        item: {
          device: {},
          wipeTable: {},
          partitions: {
            item: {
              guid: {},
              label: {},
              number: {},
              resize: since(2),
              shouldExist: {},
              sizeMiB: {},
              startMiB: {},
              typeGuid: {},
              wipePartitionEntry: {},
            },
          },
        },
      },
      filesystems: {
        item: { device: {}, format: {}, label: {}, mountOptions: since(1), options: {}, path: {}, uuid: {}, wipeFilesystem: {} },
      },
      raid: { item: { devices: {}, level: {}, name: {}, options: {}, spares: {} } },
      luks: since(2),
    },
  },
  systemd: { shape: { units: { item: { name: {}, contents: {}, enabled: {}, mask: {}, dropins: { item: { name: {}, contents: {} } } } } } },
};

/** Keeps what the spec-3.`minor` Go types hold; Go's JSON decoder drops the rest (and a null is the zero value). */
function prune(value: unknown, shape: Shape, minor: number): unknown {
  if (!isObj(value)) return value;
  const out: Obj = {};
  for (const [key, rule] of Object.entries(shape)) {
    if (!(key in value) || (rule.since ?? 0) > minor) continue;
    const v = value[key];
    if (rule.shape) out[key] = prune(v, rule.shape as Shape, minor);
    else if (rule.item) out[key] = Array.isArray(v) ? v.map((x) => prune(x, rule.item!, minor)) : v;
    else out[key] = v;
  }
  return out;
}

/** config/v3_4/translate: spec 3.4 drops the setuid, setgid and sticky bits from file and directory modes. */
function dropSpecialModeBits(config: Obj): void {
  const storage = config.storage;
  if (!isObj(storage)) return;
  for (const list of [storage.files, storage.directories])
    if (Array.isArray(list))
      for (const entry of list) if (isObj(entry) && typeof entry.mode === "number") entry.mode = entry.mode & ~0o7000;
}

const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);
const strP = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined); // ign-converter util.StrP
const boolP = (v: unknown) => (v === true ? true : undefined); // util.BoolP
const cleanPath = (p: string) => {
  const c = path.posix.normalize(path.posix.join("/", p));
  return c.length > 1 && c.endsWith("/") ? c.slice(0, -1) : c;
};

/** A v2 file, directory or link's node fields as spec 3 has them. */
const spec2Node = (n: Obj) => {
  const out: Obj = { path: cleanPath(String(n.path ?? "")) };
  if (n.overwrite !== undefined && n.overwrite !== null) out.overwrite = n.overwrite;
  const owner = (o: unknown) => {
    const x = isObj(o) ? o : {};
    const r: Obj = {};
    if (x.id !== undefined && x.id !== null) r.id = x.id;
    if (strP(x.name)) r.name = x.name;
    return r;
  };
  out.user = owner(n.user);
  out.group = owner(n.group);
  return out;
};
/** A v2 file's contents as a spec 3 resource. */
const spec2Resource = (c: unknown) => {
  const x = isObj(c) ? c : {};
  const r: Obj = { source: typeof x.source === "string" ? x.source : "" };
  if (strP(x.compression)) r.compression = x.compression;
  const hash = isObj(x.verification) ? x.verification.hash : undefined;
  r.verification = hash !== undefined && hash !== null ? { hash } : {};
  return r;
};

/** The core user as spec 3 has it, unset fields left out. */
function spec2User(user: Obj): Obj {
  return Object.fromEntries(
    Object.entries({
      name: user.name,
      passwordHash: user.passwordHash ?? undefined,
      sshAuthorizedKeys: (user.sshAuthorizedKeys as unknown[]).length ? user.sshAuthorizedKeys : undefined,
      uid: user.uid ?? undefined,
      gecos: strP(user.gecos),
      homeDir: strP(user.homeDir),
      noCreateHome: boolP(user.noCreateHome),
      primaryGroup: strP(user.primaryGroup),
      groups: Array.isArray(user.groups) && user.groups.length ? user.groups : undefined,
      noUserGroup: boolP(user.noUserGroup),
      noLogInit: boolP(user.noLogInit),
      shell: strP(user.shell),
      system: boolP(user.system),
    }).filter(([, v]) => v !== undefined),
  );
}

/**
 * Spec 2.x (2.2.0 and the 2.0/2.1 it reads as 2.2): `removeIgnDuplicateFilesUnitsUsers`
 * (helpers.go) — the last entry of a path or unit name wins and the list comes out last-first, a
 * duplicate unit's new dropins join the kept one, every user must be core and their SSH keys are
 * gathered onto the last — then ign-converter `v23tov30.Translate` with the root filesystem at "/".
 */
function fromSpec2(config: Obj): ConvertedIgnition {
  const storage = isObj(config.storage) ? config.storage : {};
  const systemd = isObj(config.systemd) ? config.systemd : {};
  const passwd = isObj(config.passwd) ? config.passwd : {};
  if (list(isObj(config.networkd) ? config.networkd.units : []).length)
    return {
      ok: false,
      error: "failed to convert Ignition config spec v2 to v3: config uses networkd units, which spec 3 has no place for",
    };
  for (const entry of [...list(storage.files), ...list(storage.directories), ...list(storage.links)])
    if ((entry.filesystem ?? "root") !== "root")
      return {
        ok: false,
        error: `failed to convert Ignition config spec v2 to v3: filesystem ${String(entry.filesystem)} is not the root filesystem`,
      };

  const files: Obj[] = [];
  const seenFiles = new Set<string>();
  for (const f of [...list(storage.files)].reverse()) {
    if (seenFiles.has(String(f.path))) continue;
    seenFiles.add(String(f.path));
    files.push(f);
  }
  const units: Obj[] = [];
  for (const u of [...list(systemd.units)].reverse()) {
    const kept = units.find((k) => k.name === u.name);
    if (!kept) units.push({ ...u, dropins: list(u.dropins) });
    else for (const d of list(u.dropins)) if (!list(kept.dropins).some((k) => k.name === d.name)) kept.dropins = [...list(kept.dropins), d];
  }
  const users = list(passwd.users);
  if (users.some((u) => u.name !== "core"))
    return {
      ok: false,
      error: `unexpected user with name: ${String(users.find((u) => u.name !== "core")!.name)}. Only core user is supported`,
    };
  let user: Obj | null = null;
  if (users.length) {
    const last = users.at(-1)!;
    const keys = [...(Array.isArray(last.sshAuthorizedKeys) ? last.sshAuthorizedKeys : [])];
    for (const u of users.slice(0, -1).reverse()) keys.push(...(Array.isArray(u.sshAuthorizedKeys) ? u.sshAuthorizedKeys : []));
    user = { ...last, sshAuthorizedKeys: [...new Set(keys)] };
  }

  const out: Obj = {
    ignition: { version: IGNITION_SPEC },
    storage: {
      files: files.map((f) => {
        const entry: Obj = { ...spec2Node(f), overwrite: f.append === true ? false : (f.overwrite ?? true) };
        if (f.mode !== undefined && f.mode !== null) entry.mode = f.mode;
        if (f.append === true) entry.append = [spec2Resource(f.contents)];
        else entry.contents = spec2Resource(f.contents);
        return entry;
      }),
      directories: list(storage.directories).map((d) => ({
        ...spec2Node(d),
        ...(d.mode !== undefined && d.mode !== null ? { mode: d.mode } : {}),
      })),
      links: list(storage.links).map((l) => ({ ...spec2Node(l), ...(boolP(l.hard) ? { hard: true } : {}), target: l.target })),
      ...(storage.disks !== undefined ? { disks: storage.disks } : {}),
      ...(storage.raid !== undefined ? { raid: storage.raid } : {}),
    },
    systemd: {
      units: units.map((u) => {
        const entry: Obj = { name: u.name };
        if (u.enabled === true || u.enable === true) entry.enabled = true;
        if (u.enabled === false) entry.enabled = false;
        if (boolP(u.mask)) entry.mask = true;
        if (strP(u.contents)) entry.contents = u.contents;
        const dropins = list(u.dropins).map((d) => ({ name: d.name, ...(strP(d.contents) ? { contents: d.contents } : {}) }));
        if (dropins.length) entry.dropins = dropins;
        return entry;
      }),
    },
    passwd: {
      ...(user
        ? {
            users: [spec2User(user)],
          }
        : {}),
      ...(list(passwd.groups).length
        ? {
            groups: list(passwd.groups).map((g) =>
              Object.fromEntries(
                Object.entries({
                  name: g.name,
                  gid: g.gid ?? undefined,
                  passwordHash: strP(g.passwordHash),
                  system: boolP(g.system),
                }).filter(([, v]) => v !== undefined),
              ),
            ),
          }
        : {}),
    },
  };
  dropSpecialModeBits(out);
  return { ok: true, config: out, from: String((config.ignition as Obj | undefined)?.version) };
}

const SUPPORTED = "2.2, 3.0, 3.1, 3.2, 3.3, 3.4, 3.5";

/**
 * A spec-3 config with two entries of the same key (two files at one path, a unit twice, …) is
 * invalid to Ignition's parser (ignitionDuplicates.ts), so ParseAndConvertConfig fails. Judged on
 * the keys the config's own spec version knows, as Ignition judges the Go types it decoded into.
 */
function withoutDuplicates(converted: Extract<ConvertedIgnition, { ok: true }>): ConvertedIgnition {
  const duplicates = duplicateEntries(converted.config);
  if (duplicates.length === 0) return converted;
  return {
    ok: false,
    error:
      "failed to parse Ignition config: parsing Ignition config spec v3 failed with error: config is not valid\nReport: " +
      duplicates.map((at) => `error at ${at}: duplicate entry defined`).join("\n"),
  };
}

/**
 * `ParseAndConvertConfig`: spec 3.0.0–3.5.0 (each only at x.y.0, as each spec's parser requires its
 * exact version) are pruned to their version's keys and translated up, losing the special mode bits
 * below 3.4; 2.0.0–2.2.0 are converted; anything else is the error the MCO gives. A config without a
 * version (a document written by hand) is read as the current spec.
 */
export function toIgnitionSpec35(config: unknown): ConvertedIgnition {
  const c = isObj(config) ? config : {};
  const version = isObj(c.ignition) ? c.ignition.version : undefined;
  if (version === undefined || version === null) return withoutDuplicates({ ok: true, config: prune(c, SHAPE, 5) as Obj, from: null });
  const m = typeof version === "string" ? SEMVER.exec(version) : null;
  if (!m) return { ok: false, error: `parsing Ignition config failed: invalid version. Supported spec versions: ${SUPPORTED}` };
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const exact = version === `${major}.${minor}.${patch}`;
  if (major === 3 && minor <= 5 && patch === 0 && exact) {
    const out = prune(c, SHAPE, minor) as Obj;
    out.ignition = { ...(isObj(c.ignition) ? c.ignition : {}), version: IGNITION_SPEC };
    if (minor < 4) dropSpecialModeBits(out);
    return withoutDuplicates({ ok: true, config: out, from: version });
  }
  if (major === 2 && minor <= 2) return fromSpec2(c);
  return { ok: false, error: `parsing Ignition config failed: unknown version. Supported spec versions: ${SUPPORTED}` };
}
