import { generateKeyPairSync, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

/**
 * A real OpenID provider for tests: oidc-provider (an independent, certified implementation) on a
 * free loopback port, with one confidential client and people whose groups a test can change.
 * Its sign-in page is a plain form (username, password); consent is given at once, as company
 * identity providers do for their own applications. Groups are released under the `profile` scope
 * at the userinfo endpoint (not in the ID token), as many providers do.
 */
export type TestPerson = { password: string; groups: string[]; name?: string; email?: string };

export type TestProvider = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  people: Map<string, TestPerson>;
  /** Follows the sign-in as a browser would, from the authorization URL to the redirect back to the client (its URL). */
  signIn(authorizationUrl: string, username: string, password: string): Promise<URL>;
  close(): Promise<void>;
};

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function loginPage(uid: string, error?: string): string {
  return `<!doctype html><html><head><title>Test identity provider</title></head><body>
<h1>Test identity provider</h1>${error ? `<p role="alert">${escape(error)}</p>` : ""}
<form method="post" action="/interaction/${escape(uid)}/login">
<label>Username <input name="username" autocomplete="username"></label>
<label>Password <input name="password" type="password" autocomplete="current-password"></label>
<button type="submit">Sign in</button></form></body></html>`;
}

async function formBody(req: http.IncomingMessage): Promise<URLSearchParams> {
  let text = "";
  for await (const chunk of req) text += chunk;
  return new URLSearchParams(text);
}

export async function startTestProvider(options: { redirectUris: string[]; postLogoutRedirectUris?: string[] }): Promise<TestProvider> {
  const people = new Map<string, TestPerson>();
  const clientId = "fleetskew";
  const clientSecret = randomBytes(24).toString("base64url");
  let handle: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_req, res) => res.writeHead(503).end();
  const server = http.createServer((req, res) => handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        post_logout_redirect_uris: options.postLogoutRedirectUris ?? [],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    // A signing key of its own per run (the provider's built-in one is for quick starts only).
    jwks: {
      keys: [
        {
          ...generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" }),
          kid: "test",
          alg: "RS256",
          use: "sig",
        },
      ],
    },
    pkce: { required: () => true },
    ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 600, Session: 3600, Grant: 3600 },
    claims: { openid: ["sub"], profile: ["name", "preferred_username", "groups"], email: ["email"] },
    features: { devInteractions: { enabled: false }, rpInitiatedLogout: { enabled: true } },
    cookies: { keys: [randomBytes(32).toString("hex")] },
    findAccount: async (_ctx: unknown, sub: string) => ({
      accountId: sub,
      // Read at each request, so a test's change of groups shows at the next sign-in.
      claims: async () => {
        const person = people.get(sub);
        return { sub, preferred_username: sub, name: person?.name ?? sub, email: person?.email, groups: person?.groups ?? [] };
      },
    }),
    // Consent at once: a grant of the scopes asked for.
    loadExistingGrant: async (ctx: {
      oidc: {
        client: { clientId: string };
        session: { accountId: string; grantIdFor(id: string): string | undefined };
        params: { scope?: string };
      };
    }) => {
      const existing = ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
      if (existing) {
        const found = await provider.Grant.find(existing);
        if (found) return found;
      }
      const grant = new provider.Grant({ accountId: ctx.oidc.session.accountId, clientId: ctx.oidc.client.clientId });
      grant.addOIDCScope(ctx.oidc.params.scope ?? "openid");
      await grant.save();
      return grant;
    },
  });
  const callback = provider.callback();

  handle = (req, res) => {
    const url = new URL(req.url ?? "/", issuer);
    const match = /^\/interaction\/([\w-]+)(\/login)?$/.exec(url.pathname);
    if (!match) return callback(req, res);
    void (async () => {
      try {
        const details = await provider.interactionDetails(req, res);
        if (req.method === "GET") {
          res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(loginPage(details.uid));
          return;
        }
        const form = await formBody(req);
        const username = form.get("username") ?? "";
        const person = people.get(username);
        if (!person || person.password !== form.get("password")) {
          res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(loginPage(details.uid, "Wrong username or password"));
          return;
        }
        await provider.interactionFinished(req, res, { login: { accountId: username } }, { mergeWithLastSubmission: false });
      } catch (error) {
        res.writeHead(400, { "content-type": "text/plain" }).end(String((error as Error).message));
      }
    })();
  };

  async function signIn(authorizationUrl: string, username: string, password: string): Promise<URL> {
    const jar = new Map<string, string>();
    const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
    const remember = (response: Response) => {
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(";");
        const eq = pair!.indexOf("=");
        jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
      }
    };
    let url = new URL(authorizationUrl);
    let body: URLSearchParams | undefined;
    for (let hop = 0; hop < 10; hop++) {
      if (!url.href.startsWith(issuer)) return url;
      const response = await fetch(url, {
        method: body ? "POST" : "GET",
        headers: { cookie: cookieHeader(), ...(body ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
        body,
        redirect: "manual",
      });
      remember(response);
      body = undefined;
      const location = response.headers.get("location");
      if (location) {
        url = new URL(location, url);
        continue;
      }
      const html = await response.text();
      const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
      if (!action || /role="alert"/.test(html)) throw new Error(`the provider did not sign ${username} in: ${html.slice(0, 300)}`);
      url = new URL(
        action.replace(/&#(\d+);/g, (_m, c: string) => String.fromCharCode(Number(c))),
        url,
      );
      body = new URLSearchParams({ username, password });
    }
    throw new Error("the provider's sign-in did not end in a redirect to the client");
  }

  return {
    issuer,
    clientId,
    clientSecret,
    people,
    signIn,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
