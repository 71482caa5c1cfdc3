import { describe, expect, it } from "vitest";
import { toCsv } from "./csv";

describe("CSV (RFC 4180)", () => {
  it("quotes fields with commas, quotes or line breaks; objects become JSON; empty for null", () => {
    const csv = toCsv(
      ["a", "b", "c"],
      [
        { a: "plain", b: 'say "hi", twice', c: null },
        { a: "line\nbreak", b: { k: "v" }, c: 3 },
      ],
    );
    expect(csv).toBe('a,b,c\r\nplain,"say ""hi"", twice",\r\n"line\nbreak","{""k"":""v""}",3\r\n');
  });

  it("keeps spreadsheet programs from running a field as a formula", () => {
    expect(toCsv(["x"], [{ x: "=HYPERLINK(1)" }, { x: "@SUM(A1)" }])).toBe("x\r\n'=HYPERLINK(1)\r\n'@SUM(A1)\r\n");
  });
});
