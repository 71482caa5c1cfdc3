/** A small seeded PRNG (mulberry32): the same seed always yields the same fleet. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(r: () => number, items: readonly T[]): T => items[Math.floor(r() * items.length)]!;

/** Weighted pick: [[value, weight], ...]. */
export function weighted<T>(r: () => number, choices: readonly (readonly [T, number])[]): T {
  const total = choices.reduce((s, [, w]) => s + w, 0);
  let x = r() * total;
  for (const [value, w] of choices) if ((x -= w) < 0) return value;
  return choices[choices.length - 1]![0];
}

/** A stable hex string derived from text, for made-up IDs (AMI IDs, UIDs, digests). */
export function hexOf(text: string, length: number): string {
  let out = "";
  let h = 2166136261;
  while (out.length < length) {
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
    h = Math.imul(h ^ out.length, 16777619);
    out += (h >>> 0).toString(16).padStart(8, "0");
  }
  return out.slice(0, length);
}

export const uidOf = (text: string) => {
  const h = hexOf(text, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
};
