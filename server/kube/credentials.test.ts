import { describe, expect, it } from "vitest";
import { checkCaBundle, checkServerUrl, parseKubeconfig } from "./credentials";

const pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
const b64 = (s: string) => Buffer.from(s).toString("base64");
const kubeconfig = (
  user: string,
  cluster = `server: https://api.example.com:6443\n    certificate-authority-data: ${b64(pem)}`,
) => `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    ${cluster}
users:
- name: u
  user:
${user}
contexts:
- name: ctx
  context: {cluster: c, user: u}
- name: other
  context: {cluster: c, user: u}
current-context: ctx
`;

describe("parseKubeconfig", () => {
  it("lists contexts and extracts inline credentials", () => {
    const kc = parseKubeconfig(kubeconfig("    token: sha256~abc"));
    expect(kc.contexts.map((c) => [c.name, c.server, c.current])).toEqual([
      ["ctx", "https://api.example.com:6443", true],
      ["other", "https://api.example.com:6443", false],
    ]);
    expect(kc.credentialsFor("ctx")).toEqual({
      server: "https://api.example.com:6443",
      token: "sha256~abc",
      certificateAuthority: pem,
      insecureSkipTlsVerify: false,
      clientCertificateData: undefined,
      clientKeyData: undefined,
    });
  });

  it("explains what is wrong instead of guessing", () => {
    expect(() => parseKubeconfig("")).toThrow("the kubeconfig is empty");
    expect(() => parseKubeconfig("clusters: [")).toThrow(/^the kubeconfig is not valid YAML/);
    expect(() => parseKubeconfig("apiVersion: v1\nkind: Config\n")).toThrow("the kubeconfig has no contexts");
    expect(() => parseKubeconfig("just a sentence")).toThrow(/not a YAML mapping/);
    expect(() => parseKubeconfig("contexts: 5")).toThrow(/^the kubeconfig is not valid: contexts/);
    const exec = parseKubeconfig(kubeconfig("    exec:\n      command: oc"));
    expect(() => exec.credentialsFor("ctx")).toThrow(/gets its credentials from a program/);
    expect(() => exec.credentialsFor("nope")).toThrow('the kubeconfig has no context named "nope"');
    const files = parseKubeconfig(
      kubeconfig("    token: t", "server: https://api.example.com:6443\n    certificate-authority: /etc/ca.crt"),
    );
    expect(() => files.credentialsFor("ctx")).toThrow(/refers to a CA file/);
    const http = parseKubeconfig(kubeconfig("    token: t", "server: http://api.example.com"));
    expect(() => http.credentialsFor("ctx")).toThrow("the API URL must use https (got http)");
    expect(() => parseKubeconfig(kubeconfig("    {}")).credentialsFor("ctx")).toThrow(/neither a token nor a client certificate/);
  });
});

describe("checks", () => {
  it("validate API URLs and CA bundles", () => {
    expect(checkServerUrl(" https://api.x.example.com:6443/ ")).toBe("https://api.x.example.com:6443");
    expect(() => checkServerUrl("api.x.example.com")).toThrow(/is not a URL/);
    expect(checkCaBundle("  ")).toBeUndefined();
    expect(() => checkCaBundle("hello")).toThrow(/not a PEM certificate/);
  });
});

describe("credential kinds and YAML limits", () => {
  it("names how each context's user authenticates", () => {
    const cases: [string, string][] = [
      ["    token: sha256~abc", "token"],
      [`    client-certificate-data: ${b64(pem)}\n    client-key-data: ${b64("-----BEGIN KEY-----")}`, "client certificate"],
      ["    exec: {command: oc}", "exec"],
      ["    auth-provider: {name: oidc}", "auth-provider"],
      ["    tokenFile: /var/run/token", "files"],
      ["    username: someone", "none"],
    ];
    for (const [user, kind] of cases) expect(parseKubeconfig(kubeconfig(user)).credentialKindOf("ctx")).toBe(kind);
    expect(parseKubeconfig(kubeconfig("    token: t")).credentialKindOf("missing")).toBe("none");
  });

  it("refuses a kubeconfig whose aliases would expand it past the limit", () => {
    const aliases = `a: &a [x, x, x, x]\n${Array.from({ length: 60 }, (_, i) => `k${i}: *a`).join("\n")}\n`;
    expect(() => parseKubeconfig(aliases)).toThrow(/not valid YAML: .*alias/i);
  });
});
