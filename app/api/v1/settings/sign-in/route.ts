import { saveSignInSettings, SignInSettingsSchema, signInSettingsView } from "@/server/auth/signInSettings";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** How people sign in: local passwords (on or off, the break-glass account) and the single sign-on configured (admin). */
export const GET = apiRoute({ access: ["admin"] }, async () => signInSettingsView());

/** Turn local sign-in on or off (admin). */
export const PUT = apiRoute({ access: ["admin"], body: SignInSettingsSchema }, async ({ body, actor }) => saveSignInSettings(body, actor));
