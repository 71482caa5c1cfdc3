import { describe, expect, it } from "vitest";
import { renderToStaticMarkup } from "react-dom/server";
import { createElement } from "react";
import { callsForAcknowledgement, LinkedText } from "./LinkedText";

const html = (text: string, cluster?: string) => renderToStaticMarkup(createElement(LinkedText, { text, cluster }));

describe("advice with its links", () => {
  it("makes a web address a link, leaving the sentence's full stop outside it", () => {
    expect(html("See https://docs.openshift.com/x/y.html.")).toBe(
      'See <a href="https://docs.openshift.com/x/y.html" class="text-accent underline" target="_blank" rel="noreferrer noopener">https://docs.openshift.com/x/y.html</a>.',
    );
  });

  it("links the acknowledgement it asks for, with the cluster chosen", () => {
    const out = html("update them by hand and then request a manual acknowledgement in Fleetskew (Manual).", "prod-east");
    expect(out).toContain(
      '<a href="/acknowledgements?request=prod-east" class="text-accent underline">request a manual acknowledgement in Fleetskew</a>',
    );
    expect(callsForAcknowledgement("record a manual acknowledgement")).toBe(true);
    expect(callsForAcknowledgement("Update the cluster")).toBe(false);
  });

  it("escapes the text it is given", () => {
    expect(html("<b>x</b>")).toBe("&lt;b&gt;x&lt;/b&gt;");
  });
});
