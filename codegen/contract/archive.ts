import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export const ARCHIVE_PATTERN = /\.(tar\.gz|tgz)$/;

/** Extracts a .tar.gz / .tgz into a temporary folder, reads it with `read`, and removes the folder. */
export async function withExtractedArchive<T>(archive: string, read: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), 'vendor-spec-'));
  try {
    await execFileAsync('tar', ['-xzf', archive, '-C', dir]);
    return await read(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
