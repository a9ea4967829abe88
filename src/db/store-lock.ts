import { closeSync, linkSync, openSync, readFileSync, statSync, unlinkSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';

/**
 * The embedded PGlite store is one process's files: two processes opening the same folder would
 * corrupt it. openStore takes this lock (a file holding the owner's pid and system) in the PGlite folder before
 * opening it and releases it on close. A lock left by a process that no longer exists is taken
 * over. PostgreSQL (DATABASE_URL) and `memory://` need no lock.
 */
export const LOCK_FILE_NAME = 'switchyard.lock';

export class StoreLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
    readonly host?: string,
  ) {
    super(
      host === undefined
        ? `The embedded store in ${dir} is in use by process ${pid} (is \`npm start\` running?). Stop it, or use DATABASE_URL for a shared PostgreSQL.`
        : `The embedded store in ${dir} is in use by process ${pid} on ${host} (another machine or container sharing the folder). ` +
            `Stop it, or use DATABASE_URL for a shared PostgreSQL. If nothing runs there any more, its lock is taken over 15 minutes after its last refresh, or delete ${path.join(dir, LOCK_FILE_NAME)}.`,
    );
    this.name = 'StoreLockedError';
  }
}

/**
 * Which system a lock was taken on: the host name and the kernel's boot id. A pid means something only there:
 * containers sharing the folder each see their own pids (every one may be pid 1), and a lock taken on another
 * system cannot be checked from here, so it is never taken over.
 */
function thisSystem(): string {
  let boot = '';
  try {
    boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    // Not Linux: the host name alone.
  }
  return `${hostname()}${boot === '' ? '' : ` boot ${boot}`}`;
}

const SYSTEM = thisSystem();
const LOCK_TEXT = `${process.pid}\n${SYSTEM}\n`;

export interface StoreLock {
  file: string;
  release(): void;
}

/** Folders locked by this process: a lock file naming our own pid is ours only if it is listed here (pids repeat across container restarts). */
const heldHere = new Set<string>();

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid in a lock file's text, and the system it names (absent in locks of earlier releases: this one). */
function parseLock(text: string | undefined): { pid: number; system: string } | undefined {
  if (text === undefined) return undefined;
  const [first = '', second] = text.split('\n');
  const pid = Number.parseInt(first.trim(), 10);
  return Number.isInteger(pid) && pid > 0 ? { pid, system: second?.trim() || SYSTEM } : undefined;
}

/** Creates the lock file with our pid already inside (written aside, then hard-linked: no reader ever sees it empty). */
function create(file: string): boolean {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, LOCK_TEXT, { mode: 0o600 });
  try {
    linkSync(temp, file);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw error;
    return createExclusive(file); // a file system without hard links
  } finally {
    unlinkSync(temp);
  }
}

function createExclusive(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, LOCK_TEXT);
  } finally {
    closeSync(fd);
  }
  return true;
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Removes the lock when it is this process's own (its whole text: the pid alone may be another system's). */
function removeIfOwned(file: string): void {
  try {
    if (readText(file) === LOCK_TEXT) unlinkSync(file);
  } catch {
    // Already gone.
  }
}

/**
 * A lock from another system cannot be checked there, so its holder refreshes it (the file's time) every
 * HEARTBEAT_MS; one not refreshed for ABANDONED_AFTER_MS was left by a process that died (a container killed
 * and replaced), and is taken over. The margin is wide: the embedded store's work runs on the event loop, and a
 * long migration may hold it for minutes.
 */
const HEARTBEAT_MS = 30_000;
export const ABANDONED_AFTER_MS = 15 * 60_000;

function lastRefreshed(file: string): number | undefined {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Takes the lock of the embedded store in `dir` (an existing folder), or throws StoreLockedError naming the process that holds it. */
export function acquireStoreLock(dir: string): StoreLock {
  const file = path.join(dir, LOCK_FILE_NAME);
  for (let attempt = 0; attempt < 3; attempt += 1) {
    if (create(file)) {
      heldHere.add(file);
      const onExit = () => removeIfOwned(file);
      process.once('exit', onExit);
      const heartbeat = setInterval(() => {
        try {
          if (readText(file) === LOCK_TEXT) utimesSync(file, new Date(), new Date());
        } catch {
          // The folder went away: nothing to refresh.
        }
      }, HEARTBEAT_MS);
      heartbeat.unref();
      return {
        file,
        release() {
          if (!heldHere.delete(file)) return;
          clearInterval(heartbeat);
          process.removeListener('exit', onExit);
          removeIfOwned(file);
        },
      };
    }
    const text = readText(file);
    const lock = parseLock(text);
    if (lock !== undefined) {
      if (lock.system !== SYSTEM) {
        const refreshed = lastRefreshed(file);
        if (refreshed === undefined || Date.now() - refreshed < ABANDONED_AFTER_MS)
          throw new StoreLockedError(dir, lock.pid, lock.system.replace(/ boot .*$/, ''));
      } else {
        const ours = lock.pid === process.pid;
        if (ours ? heldHere.has(file) : processExists(lock.pid)) throw new StoreLockedError(dir, lock.pid);
      }
    }
    // Stale (dead owner, our pid from an earlier life, abandoned on another system, or unreadable): remove it unless
    // it changed meanwhile, and retry.
    try {
      if (readText(file) === text) unlinkSync(file);
    } catch {
      // Removed by someone else; retry.
    }
  }
  throw new StoreLockedError(dir, parseLock(readText(file))?.pid ?? 0);
}
