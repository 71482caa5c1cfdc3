import { readConfig, type AppConfig } from "./env";

let cached: AppConfig | undefined;

/** The process's configuration, read from the environment once (start-up has checked it already). */
export function appConfig(): AppConfig {
  return (cached ??= readConfig());
}
