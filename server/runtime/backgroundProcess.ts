import { spawn, type ChildProcess } from "node:child_process";

/**
 * The background process `npm start` runs beside its web server (scripts/background.ts): the
 * collector's sweeps and the job system's work run there, off the web server's event loop, so a page
 * answers as fast during a sweep as without one.
 *
 * It dies with the web process: it is linked to it by an IPC channel, which the operating system
 * closes when the parent exits in any way (kill -9 included), and it exits when the channel closes.
 * It is started again when it stops on its own, after a pause that doubles with each quick crash
 * (1 s to 30 s) so that a background process that cannot start does not spin.
 */
export type BackgroundProcess = { stop(): Promise<void>; pid(): number | undefined };

/** The message the background process sends when something the fleet list shows changed. */
export const FLEET_LIST_CHANGED = "fleet-list-changed";
export type BackgroundMessage = { type: typeof FLEET_LIST_CHANGED; cause: "change" | "sweep" };

const FIRST_PAUSE_MS = 1_000;
const LONGEST_PAUSE_MS = 30_000;
/** Up this long, a process counts as having started well: the next crash waits the first pause again. */
const HEALTHY_MS = 60_000;

export function superviseBackgroundProcess(options: {
  /** The entry point, run with this process's Node options (tsx's loader in a source checkout). */
  script: string;
  /** Node options of its own, after this process's. */
  nodeOptions?: string[];
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  onMessage?: (message: BackgroundMessage) => void;
}): BackgroundProcess {
  let child: ChildProcess | undefined;
  let stopping = false;
  let quickExits = 0;
  let timer: NodeJS.Timeout | undefined;

  const start = () => {
    const startedAt = Date.now();
    const current = spawn(process.execPath, [...process.execArgv, ...(options.nodeOptions ?? []), options.script], {
      env: options.env,
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    child = current;
    current.on("error", (error) => options.log(`background process: ${error.message}`));
    current.on("message", (message: BackgroundMessage) => {
      if (message?.type === FLEET_LIST_CHANGED) options.onMessage?.(message);
    });
    current.on("exit", (code, signal) => {
      if (child === current) child = undefined;
      if (stopping) return;
      quickExits = Date.now() - startedAt < HEALTHY_MS ? quickExits + 1 : 0;
      const pause = Math.min(FIRST_PAUSE_MS * 2 ** Math.max(0, quickExits - 1), LONGEST_PAUSE_MS);
      options.log(`background process stopped (${signal ?? `exit code ${code}`}); starting it again in ${pause / 1000} s`);
      timer = setTimeout(start, pause);
    });
  };
  start();

  return {
    pid: () => child?.pid,
    async stop() {
      stopping = true;
      clearTimeout(timer);
      const current = child;
      if (!current || current.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => current.once("exit", () => resolve()));
      // It finishes the sweeps and jobs in flight; after 20 s it is stopped regardless.
      current.kill("SIGTERM");
      const force = setTimeout(() => current.kill("SIGKILL"), 20_000);
      await exited;
      clearTimeout(force);
    },
  };
}
