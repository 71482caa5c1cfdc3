import { signInSettingsEndpoints } from "@/server/auth/contract";
import { saveSignInSettings, signInSettingsView } from "@/server/auth/signInSettings";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** How people sign in: local passwords (on or off, the break-glass account) and the single sign-on configured (admin). */
export const GET = apiRoute(signInSettingsEndpoints.read, async () => signInSettingsView());

/** Turn local sign-in on or off (admin). */
export const PUT = apiRoute(signInSettingsEndpoints.change, async ({ body, actor }) => saveSignInSettings(body, actor));
