import { describe, expect, it } from "vitest";
import { judgeProviderUsername, normaliseUsername, visibleName } from "./usernames";

describe("judgeProviderUsername", () => {
  it("keeps ordinary names of one script, and Latin with Han and kana, normalised with NFKC", () => {
    for (const name of ["ada", "ada.lovelace@example.com", "josé", "Ælfrēd", "дмитрий", "山田太郎", "yamada山田", "ゆき", "Σωκράτης"])
      expect(judgeProviderUsername(name), name).toEqual({ ok: true, username: name.normalize("NFKC") });
    expect(judgeProviderUsername("ａｄｍｉｎ")).toEqual({ ok: true, username: "admin" });
    expect(judgeProviderUsername("  ﬁnn ")).toEqual({ ok: true, username: "finn" });
  });

  it("refuses invisible characters: zero-width, bidi controls, soft hyphen, tabs", () => {
    for (const name of ["adm\u200bin", "ad\u200dmin", "\u202eadmin", "ad\u00admin", "admin\ufeff", "ad\tmin", "adm\u2060in"]) {
      const verdict = judgeProviderUsername(name);
      expect(verdict.ok, JSON.stringify(name)).toBe(false);
      expect(!verdict.ok && verdict.reason).toMatch(/invisible or control character/);
    }
    expect(judgeProviderUsername("adm\u200bin")).toEqual({
      ok: false,
      reason: '"adm\\u{200B}in" contains an invisible or control character',
    });
  });

  it("refuses a Latin name with a Cyrillic or Greek letter in it, and a name wholly of Latin lookalikes", () => {
    expect(judgeProviderUsername("\u0430dmin")).toEqual({
      ok: false,
      reason: '"\\u{430}dmin" mixes letters of Cyrillic and Latin scripts',
    });
    expect(judgeProviderUsername("r\u03bfot").ok).toBe(false);
    expect(judgeProviderUsername("\u0430\u0441\u0435")).toEqual({
      ok: false,
      reason: '"\\u{430}\\u{441}\\u{435}" is written in Cyrillic letters that look like Latin ones',
    });
    expect(judgeProviderUsername("").ok).toBe(false);
  });

  it("shows any name in printable ASCII", () => {
    expect(visibleName("é\u200b")).toBe("\\u{E9}\\u{200B}");
    expect(normaliseUsername(" Ｒoot ")).toBe("Root");
  });
});
