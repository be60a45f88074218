import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inOwnProcess } from '../../bench/own-process';
import { runSections } from '../../bench/sections';

describe('bench sections', () => {
  it('reports a section that throws or can never finish, runs the rest, and exits non-zero (own process, as npm run bench)', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'fixtures', 'bench-sections-child.ts')], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.stdout).toContain('FAILED: throws: port 33000 (web app and local API gateway) is already in use');
    expect(result.stdout).toContain('FAILED: never settles: it can never finish');
    expect(result.stdout).toContain('the last section ran');
    expect(result.stdout).toContain('2 of 3 bench sections failed:\n  throws: port 33000');
    expect(result.status).toBe(1);
  });

  it('fails a section that takes longer than its time limit and goes on', async () => {
    const lines: string[] = [];
    let ran = false;
    const failures = await runSections(
      [
        { name: 'slow', run: () => new Promise((resolve) => setTimeout(resolve, 5_000)) },
        { name: 'next', run: async () => void (ran = true) },
      ],
      { log: (line) => lines.push(line), timeoutMs: 300 },
    );
    expect(failures).toEqual([{ name: 'slow', reason: 'did not finish within 0.3 s' }]);
    expect(ran).toBe(true);
    expect(lines.join('\n')).toContain('FAILED: slow: did not finish within 0.3 s');
  });

  it('says so when every section ran', async () => {
    const lines: string[] = [];
    expect(await runSections([{ name: 'a', run: async () => undefined }], { log: (l) => lines.push(l) })).toEqual([]);
    expect(lines).toEqual(['\nAll 1 bench sections ran.']);
  });

  it('runs parts in processes of their own, hands back the figures each said (also of one that failed) and the reason it failed, and goes on after one that fails or dies', async () => {
    const script = path.join(import.meta.dirname, 'fixtures', 'bench-part-child.ts');
    const figures = new Map(['fine', 'over', 'dies', 'last'].map((name) => [name, [] as string[]]));
    const lines: string[] = [];
    const failures = await runSections(
      [...figures.keys()].map((name) => ({ name, run: inOwnProcess(name, figures.get(name), script) })),
      { log: (line) => lines.push(line) },
    );
    expect(failures).toEqual([
      { name: 'over', reason: '1.30x is over the target' },
      { name: 'dies', reason: 'the dies part was killed (SIGKILL)' },
    ]);
    expect(Object.fromEntries(figures)).toEqual({
      fine: ['fine: 1.10x (target <= 1.2x)'],
      over: ['over: 1.10x (target <= 1.2x)', 'over: second figure'],
      dies: ['dies: 1.10x (target <= 1.2x)'],
      last: ['last: 1.10x (target <= 1.2x)'],
    });
  }, 60_000);
});
