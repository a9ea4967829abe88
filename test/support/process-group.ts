/** Process groups of spawned trees (children started with `detached: true` lead their own group). */

/** Whether any process is left in the process group `pgid`. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

export async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return condition();
}

/** SIGTERM to the whole group, then SIGKILL to what is left after `graceMs`. */
export async function stopGroup(pgid: number, graceMs = 15_000): Promise<void> {
  if (!groupAlive(pgid)) return;
  process.kill(-pgid, 'SIGTERM');
  if (!(await waitUntil(() => !groupAlive(pgid), graceMs))) process.kill(-pgid, 'SIGKILL');
}
