/**
 * Ignition's duplicate check, which its spec-3 parser runs before the MCO sees the config
 * (coreos/ignition v2 config/validate/validate.go `ValidateDups`, as vendored by the MCO at
 * release-4.22; docs/openshift.md §3.1). Every list in the config is keyed, and a second entry with
 * a key already seen makes the whole config invalid ("duplicate entry defined"), so
 * `ParseAndConvertConfig` fails and the MCO refuses the update. The keys (config/v3_5/types `Key()`):
 * files, directories and links share one key space, their path; units, dropins, users, groups,
 * RAID arrays and LUKS devices by name; disks and filesystems by device; partitions by number, else
 * label; resources by source; HTTP headers by name; Tang servers by URL; lists of strings by value.
 * A missing key counts as "" (Go's zero value). Lists the types exempt are skipped: a file's `append`,
 * and the `options` of filesystems, RAID and LUKS, and `mountOptions`.
 */
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === "object" && !Array.isArray(v);
const items = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const field = (v: unknown, key: string) => (isObj(v) && typeof v[key] === "string" ? (v[key] as string) : "");
const byField = (key: string) => (v: unknown) => field(v, key);
const asString = (v: unknown) => (typeof v === "string" ? v : "");
/** Partition.Key: "number:N" when a number is set, else "label:L" when a label is, else "". */
const partitionKey = (v: unknown) => {
  const p = isObj(v) ? v : {};
  if (typeof p.number === "number" && p.number !== 0) return `number:${p.number}`;
  return typeof p.label === "string" ? `label:${p.label}` : "";
};

/** The JSON paths of entries whose key an earlier entry of the same key space already has, in the order Ignition walks them. */
export function duplicateEntries(config: unknown): string[] {
  const found: string[] = [];
  /** One key space over one or more lists (Storage's MergedKeys put files, directories and links in one). */
  const space = (lists: [string, unknown][], key: (v: unknown) => string) => {
    const seen = new Set<string>();
    for (const [at, list] of lists)
      items(list).forEach((entry, i) => {
        const k = key(entry);
        if (seen.has(k)) found.push(`${at}.${i}`);
        seen.add(k);
      });
  };
  const resource = (at: string, r: unknown) => {
    if (isObj(r)) space([[`${at}.httpHeaders`, r.httpHeaders]], byField("name"));
  };
  const c = isObj(config) ? config : {};
  const ignition = isObj(c.ignition) ? c.ignition : {};
  const merge = isObj(ignition.config) ? ignition.config.merge : undefined;
  space([["$.ignition.config.merge", merge]], byField("source"));
  items(merge).forEach((r, i) => resource(`$.ignition.config.merge.${i}`, r));
  const proxy = isObj(ignition.proxy) ? ignition.proxy : {};
  space([["$.ignition.proxy.noProxy", proxy.noProxy]], asString);
  const tls = isObj(ignition.security) && isObj(ignition.security.tls) ? ignition.security.tls : {};
  space([["$.ignition.security.tls.certificateAuthorities", tls.certificateAuthorities]], byField("source"));

  const kargs = isObj(c.kernelArguments) ? c.kernelArguments : {};
  space(
    [
      ["$.kernelArguments.shouldExist", kargs.shouldExist],
      ["$.kernelArguments.shouldNotExist", kargs.shouldNotExist],
    ],
    asString,
  );

  const passwd = isObj(c.passwd) ? c.passwd : {};
  space([["$.passwd.users", passwd.users]], byField("name"));
  items(passwd.users).forEach((u, i) => {
    const user = isObj(u) ? u : {};
    space([[`$.passwd.users.${i}.groups`, user.groups]], asString);
    space([[`$.passwd.users.${i}.sshAuthorizedKeys`, user.sshAuthorizedKeys]], asString);
  });
  space([["$.passwd.groups", passwd.groups]], byField("name"));

  const storage = isObj(c.storage) ? c.storage : {};
  // Files, directories and links share one key space, their path (Storage.MergedKeys).
  space(
    [
      ["$.storage.directories", storage.directories],
      ["$.storage.files", storage.files],
      ["$.storage.links", storage.links],
    ],
    byField("path"),
  );
  space([["$.storage.disks", storage.disks]], byField("device"));
  items(storage.disks).forEach((d, i) => space([[`$.storage.disks.${i}.partitions`, isObj(d) ? d.partitions : undefined]], partitionKey));
  items(storage.files).forEach((f, i) => {
    if (!isObj(f)) return;
    resource(`$.storage.files.${i}.contents`, f.contents);
    items(f.append).forEach((r, j) => resource(`$.storage.files.${i}.append.${j}`, r));
  });
  space([["$.storage.filesystems", storage.filesystems]], byField("device"));
  space([["$.storage.luks", storage.luks]], byField("name"));
  items(storage.luks).forEach((l, i) => {
    const luks = isObj(l) ? l : {};
    space([[`$.storage.luks.${i}.openOptions`, luks.openOptions]], asString);
    const clevis = isObj(luks.clevis) ? luks.clevis : {};
    space([[`$.storage.luks.${i}.clevis.tang`, clevis.tang]], byField("url"));
  });
  space([["$.storage.raid", storage.raid]], byField("name"));
  items(storage.raid).forEach((r, i) => space([[`$.storage.raid.${i}.devices`, isObj(r) ? r.devices : undefined]], asString));

  const systemd = isObj(c.systemd) ? c.systemd : {};
  space([["$.systemd.units", systemd.units]], byField("name"));
  items(systemd.units).forEach((u, i) => space([[`$.systemd.units.${i}.dropins`, isObj(u) ? u.dropins : undefined]], byField("name")));
  return [...new Set(found)];
}
