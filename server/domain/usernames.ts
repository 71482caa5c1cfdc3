/**
 * Names that come from an identity provider (OpenID Connect's preferred_username, OpenShift's user)
 * become Fleetskew usernames, shown in the audit log and beside every change a person makes. A
 * name that looks like another person's is refused: NFKC-normalised first, so compatibility forms
 * (fullwidth `ａｄｍｉｎ`, ligatures) become what they look like; then refused when it hides
 * characters (zero-width, bidirectional and other invisible format characters), mixes scripts a
 * reader cannot tell apart (a Cyrillic `а` in a Latin `admin`), or is written wholly in letters of
 * another script that look Latin (`асе`, all Cyrillic). This follows Unicode's UTS #39 (Unicode
 * Security Mechanisms: §5.2 "Highly Restrictive" mixed-script detection, §4 confusables), with a
 * subset of its confusables.txt: the Cyrillic and Greek letters that look like Latin ones.
 */

export type UsernameVerdict = { ok: true; username: string } | { ok: false; reason: string };

/** NFKC, trimmed: how any typed or provided name is compared (sign-in throttles key on it too). */
export const normaliseUsername = (raw: string): string => raw.normalize("NFKC").trim();

/** Control, format (zero-width, bidi), separator and other default-ignorable characters: invisible, or not what they seem. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]|[^\S ]/u;

const SCRIPTS: [string, RegExp][] = [
  ["Latin", /\p{Script=Latin}/u],
  ["Cyrillic", /\p{Script=Cyrillic}/u],
  ["Greek", /\p{Script=Greek}/u],
  ["Armenian", /\p{Script=Armenian}/u],
  ["Cherokee", /\p{Script=Cherokee}/u],
  // Han with the Japanese kana, Bopomofo and Hangul: one writing system for UTS #39's purposes.
  ["CJK", /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Bopomofo}\p{Script=Hangul}]/u],
];

function scriptOf(letter: string): string {
  for (const [name, pattern] of SCRIPTS) if (pattern.test(letter)) return name;
  return "Other";
}

/** Cyrillic and Greek letters that confusables.txt maps to a Latin letter (lower and upper case). */
const LOOKS_LATIN = new Set([
  ..."аеіјорсуѕхԁһԛԝӏьвмнкт", // Cyrillic small
  ..."АВЕЅІЈКМНОРСТХУԜ", // Cyrillic capital
  ..."αοιρνυκτχγ", // Greek small
  ..."ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", // Greek capital
]);

/** A name as a person can read it whatever it holds: anything outside printable ASCII as \u{…}. */
export const visibleName = (name: string): string =>
  [...name].map((c) => (/^[\x21-\x7E ]$/.test(c) ? c : `\\u{${c.codePointAt(0)!.toString(16).toUpperCase()}}`)).join("");

/** Judges a name from an identity provider; the normalised name, or why it is refused. */
export function judgeProviderUsername(raw: string): UsernameVerdict {
  // Judged before trimming: String.prototype.trim would quietly drop a byte-order mark or a line separator.
  const spaced = raw.normalize("NFKC").replace(/^ +| +$/g, "");
  if (INVISIBLE.test(spaced)) return { ok: false, reason: `"${visibleName(spaced)}" contains an invisible or control character` };
  const username = normaliseUsername(raw);
  if (!username) return { ok: false, reason: "it is empty" };
  const letters = [...username].filter((c) => /\p{L}/u.test(c));
  const scripts = new Set(letters.map(scriptOf));
  const allowedMix = scripts.size === 2 && scripts.has("Latin") && scripts.has("CJK");
  if (scripts.size > 1 && !allowedMix)
    return { ok: false, reason: `"${visibleName(username)}" mixes letters of ${[...scripts].sort().join(" and ")} scripts` };
  if (letters.length > 0 && !scripts.has("Latin") && letters.every((c) => LOOKS_LATIN.has(c)))
    return { ok: false, reason: `"${visibleName(username)}" is written in ${[...scripts][0]} letters that look like Latin ones` };
  return { ok: true, username };
}

/** Why a provider's name is refused, with the account's stable id for the administrators. */
export const unacceptableNameMessage = (reason: string, provider: string, externalId: string) =>
  `Your name at ${provider} cannot be a Fleetskew username: ${reason}, so it could pass for someone else's. Ask your administrators to rename the account (its id: ${visibleName(externalId)})`;
