import { closeSync, linkSync, openSync, readFileSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';

/**
 * The embedded PGlite store is one process's files: two processes opening the same folder would
 * corrupt it. openStore takes this lock (a file holding the owner's pid) in the PGlite folder before
 * opening it and releases it on close. A lock left by a process that no longer exists is taken
 * over. PostgreSQL (DATABASE_URL) and `memory://` need no lock.
 */
export const LOCK_FILE_NAME = 'switchyard.lock';

export class StoreLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(`The embedded store in ${dir} is in use by process ${pid} (is \`npm start\` running?). Stop it, or use DATABASE_URL for a shared PostgreSQL.`);
    this.name = 'StoreLockedError';
  }
}

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

function readOwner(file: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Creates the lock file with our pid already inside (written aside, then hard-linked: no reader ever sees it empty). */
function create(file: string): boolean {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${process.pid}\n`, { mode: 0o600 });
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
    writeSync(fd, `${process.pid}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

function removeIfOwned(file: string): void {
  try {
    if (readOwner(file) === process.pid) unlinkSync(file);
  } catch {
    // Already gone.
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
      return {
        file,
        release() {
          if (!heldHere.delete(file)) return;
          process.removeListener('exit', onExit);
          removeIfOwned(file);
        },
      };
    }
    const owner = readOwner(file);
    if (owner !== undefined) {
      const ours = owner === process.pid;
      if (ours ? heldHere.has(file) : processExists(owner)) throw new StoreLockedError(dir, owner);
    }
    // Stale (dead owner, our pid from an earlier life, or unreadable): remove it unless it changed meanwhile, and retry.
    try {
      if (readOwner(file) === owner) unlinkSync(file);
    } catch {
      // Removed by someone else; retry.
    }
  }
  const owner = readOwner(file);
  throw new StoreLockedError(dir, owner ?? 0);
}
