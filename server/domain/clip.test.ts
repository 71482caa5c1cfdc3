import { describe, expect, it } from "vitest";
import { clipLabelValue, clipText, MAX_LABEL_VALUE_CHARS, MAX_STORED_TEXT_BYTES } from "./clip";

const bytes = (text: string) => new TextEncoder().encode(text).length;

describe("clipping a cluster's words", () => {
  it("keeps a text within the bound as it is, and null as null", () => {
    expect(clipText("Working towards 4.19.11: 712 of 893 done (79% complete)")).toBe(
      "Working towards 4.19.11: 712 of 893 done (79% complete)",
    );
    expect(clipText("x".repeat(MAX_STORED_TEXT_BYTES))).toHaveLength(MAX_STORED_TEXT_BYTES);
    expect(clipText(null)).toBeNull();
    expect(clipText(undefined)).toBeUndefined();
  });

  it("cuts a 30 MB message to 32 KiB of UTF-8, ending in an ellipsis", () => {
    const clipped = clipText("y".repeat(30_000_000));
    expect(bytes(clipped)).toBeLessThanOrEqual(MAX_STORED_TEXT_BYTES);
    expect(bytes(clipped)).toBeGreaterThan(MAX_STORED_TEXT_BYTES - 4);
    expect(clipped.endsWith("…")).toBe(true);
  });

  it("counts bytes, not characters, and never leaves half a character", () => {
    // Three bytes each in UTF-8 ("あ"), four for an emoji (a surrogate pair in JavaScript).
    for (const unit of ["あ", "😀", "é"]) {
      const clipped = clipText(unit.repeat(20_000), 1000);
      expect(bytes(clipped)).toBeLessThanOrEqual(1000);
      expect(clipped).not.toContain("\uFFFD");
      expect(clipped.slice(0, -1)).toBe(unit.repeat(clipped.slice(0, -1).length / unit.length));
    }
  });

  it("cuts a metric label's value far shorter", () => {
    expect(clipLabelValue("AdminAckRequired")).toBe("AdminAckRequired");
    const clipped = clipLabelValue("R".repeat(100_000));
    expect(clipped).toHaveLength(MAX_LABEL_VALUE_CHARS);
    expect(clipped.endsWith("…")).toBe(true);
    expect(clipLabelValue("😀".repeat(200)).slice(0, -1)).not.toMatch(/[\uD800-\uDBFF]$/);
  });
});
