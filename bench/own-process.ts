import { spawn } from 'node:child_process';
import path from 'node:path';
import { projectRoot } from '../bin/local/settings';

/**
 * Bench parts in processes of their own. A part's local stack sets the environment its handlers
 * read once at import (clients, endpoints), as Lambda does; a second stack in the same process
 * would be served by handlers bound to the first. A part that fails (or dies) rejects with why.
 *
 * A part says each figure it measured with `figure(...)` (a line `figure: ...`): its output goes
 * through as it comes, and those lines are handed back, so a group of parts (`lifecycle`) can
 * print its figures together at the end; a part that fails rejects with its own reason.
 */
const FIGURE = 'figure: ';

/** Prints one measured figure (with its target) so that a group running this part collects it. */
export const figure = (text: string): void => console.log(`${FIGURE}${text}`);

/** `script`: what runs the part (bench/run.ts with the part's name; a test's fixture). */
export function inOwnProcess(name: string, figures: string[] = [], script = path.join(projectRoot, 'bench', 'run.ts')): () => Promise<void> {
  return () =>
    new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', script, name], { stdio: ['ignore', 'pipe', 'inherit'], env: process.env });
      let partial = '';
      // The part's own words for its failure (bench/sections.ts prints `FAILED: <part>: <reason>`).
      const failedMark = `FAILED: ${name}: `;
      let reason: string | undefined;
      child.stdout.on('data', (data: Buffer) => {
        process.stdout.write(data);
        const lines = (partial + data.toString()).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) {
          if (line.startsWith(FIGURE)) figures.push(line.slice(FIGURE.length));
          if (line.startsWith(failedMark)) reason ??= line.slice(failedMark.length);
        }
      });
      child.once('error', reject);
      child.once('close', (code, signal) => {
        if (partial.startsWith(FIGURE)) figures.push(partial.slice(FIGURE.length));
        if (code === 0) resolve();
        else reject(new Error(reason ?? `the ${name} part ${signal ? `was killed (${signal})` : `exited with ${code}`}`));
      });
    });
}
