/** The parts of oidc-provider (which ships no types) that the test provider uses. */
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";
  type AnyObject = Record<string, unknown>;
  export interface Grant {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }
  export default class Provider {
    constructor(issuer: string, configuration: AnyObject);
    proxy: boolean;
    Grant: { new (init: { accountId: string; clientId: string }): Grant; find(id: string): Promise<Grant | undefined> };
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<{ uid: string; prompt: { name: string }; params: AnyObject }>;
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: AnyObject, options?: AnyObject): Promise<void>;
    on(event: string, listener: (...args: unknown[]) => void): void;
  }
}
