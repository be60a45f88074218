/**
 * `npm run bench -- lifecycle`: issue 27's three figures, each part in a process of its own
 * (each starts a local stack: see own-process.ts), one after another; a part that fails is
 * reported and the next one runs. At the end the three figures with their targets, or why a
 * part gave none. The parts run alone too: `add-people`, `project-delete`, `actions`.
 */
import { runSections } from './sections';
import { inOwnProcess } from './own-process';

export const lifecycleParts = [
  { name: 'actions', what: 'Deactivate 10,000 provisioned accounts on a SCIM server: <= 1.25x a bare client at the same concurrency, 0 in a wrong state' },
  { name: 'project-delete', what: 'Delete a project of 50,000 accounts (no platform): <= 1.5x a bare BatchWrite delete, the worker under 256 MB' },
  { name: 'add-people', what: 'Add 100 people to a project of 50,000: <= 1.2x creating a project of 100' },
] as const;

export async function lifecycleBench(): Promise<void> {
  const figures = new Map<string, string[]>(lifecycleParts.map((part) => [part.name, []]));
  const failures = await runSections(lifecycleParts.map((part) => ({ name: part.name, run: inOwnProcess(part.name, figures.get(part.name)) })));
  console.log('\n== Issue 27 (lifecycle) figures');
  for (const part of lifecycleParts) {
    const failure = failures.find((f) => f.name === part.name);
    console.log(`  ${part.what}`);
    for (const line of figures.get(part.name)!) console.log(`    ${line}`);
    if (failure) console.log(`    FAILED: ${failure.reason.split('\n')[0]}`);
  }
  if (failures.length) throw new Error(`${failures.map((f) => f.name).join(', ')} failed (above)`);
}
