import { signInSettingsEndpoints } from "@/server/auth/contract";
import { saveOidcSettings } from "@/server/auth/oidcSettings";
import { signInSettingsView } from "@/server/auth/signInSettings";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Set the OpenID provider (admin); the client secret is sealed, and refused while the environment sets a provider. */
export const PUT = apiRoute(signInSettingsEndpoints.setOidc, async ({ body, actor }) => {
  await saveOidcSettings(body, actor);
  return signInSettingsView();
});

/** Remove the OpenID provider set on the admin page (admin). */
export const DELETE = apiRoute(signInSettingsEndpoints.removeOidc, async ({ actor }) => {
  await saveOidcSettings(null, actor);
  return signInSettingsView();
});
