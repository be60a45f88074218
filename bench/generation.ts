/**
 * Generation and CSV figures (issue 3, Numbers): passwords per second with node:crypto, and the
 * time to read a 50,000-row CSV. Measures, never asserts.
 */
import { randomBytes } from 'node:crypto';
import { readPeopleCsv } from '../shared/csv/read-people';
import { csvLine } from '../shared/csv/write-csv';
import { createPasswordGenerator } from '../shared/generation/password';
import { assignUsernames, createUsernameAllocator } from '../shared/generation/username';
import { defaultPasswordSettings } from '../shared/schemas/bulk';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function passwordsPerSecond(): number {
  const generate = createPasswordGenerator(defaultPasswordSettings, randomBytes);
  for (let i = 0; i < 50_000; i++) generate(); // warm up the JIT
  let count = 0;
  let length = 0;
  const started = performance.now();
  let elapsed = 0;
  while (elapsed < 1500) {
    for (let i = 0; i < 10_000; i++) length += generate().length;
    count += 10_000;
    elapsed = performance.now() - started;
  }
  if (length !== count * defaultPasswordSettings.minLength) throw new Error('unexpected password length');
  return count / (elapsed / 1000);
}

/** 50,000 people with the awkward parts real files have: quoted commas and quotes, accents, CRLF, a BOM. */
function peopleCsv(rows: number): string {
  const lines = ['\uFEFF' + csvLine(['First Name', 'Last Name', 'Email'])];
  for (let i = 0; i < rows; i++) {
    const first = i % 10 === 0 ? `José ${i}, Jr.` : `Firstname${i}`;
    const last = i % 25 === 0 ? `O"Brien-Núñez` : `Lastname${i}`;
    lines.push(csvLine([first, last, `person${i}@example.com`]));
  }
  return lines.join('');
}

function time<T>(run: () => T): { ms: number; result: T } {
  const started = performance.now();
  const result = run();
  return { ms: performance.now() - started, result };
}

export async function generationBench(): Promise<void> {
  console.log('\n== Generation (targets: > 500,000 passwords/s; 50,000-row CSV read < 500 ms)');
  const rates = [passwordsPerSecond(), passwordsPerSecond(), passwordsPerSecond()];
  console.log(
    `  passwords (length 12, default settings, node:crypto): ${Math.round(median(rates)).toLocaleString('en-US')}/s` +
      ` (median of 3 runs of 1.5 s; min ${Math.round(Math.min(...rates)).toLocaleString('en-US')})`,
  );

  const text = peopleCsv(50_000);
  const reads = Array.from({ length: 5 }, () => time(() => readPeopleCsv(text)));
  const { result } = reads[0]!;
  if (result.valid.length !== 50_000) throw new Error(`expected 50,000 valid rows, got ${result.valid.length}`);
  const times = reads.map((r) => r.ms);
  console.log(
    `  readPeopleCsv, 50,000 rows (${(text.length / 1024 / 1024).toFixed(1)} MB): median ${median(times).toFixed(0)} ms` +
      ` (first ${times[0]!.toFixed(0)}, min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)})`,
  );

  // One line in a hundred with a malformed quote (issue 9): each costs only its own line.
  const strayQuotes = text.split('\r\n').map((line, i) => (i % 100 === 50 ? line.replace(',person', ',"person') : line)).join('\r\n');
  const strayReads = Array.from({ length: 5 }, () => time(() => readPeopleCsv(strayQuotes)));
  const stray = strayReads[0]!.result;
  if (stray.rows.length !== 50_000 || stray.invalid.length !== 500) {
    throw new Error(`expected 50,000 rows with 500 rejected, got ${stray.rows.length} with ${stray.invalid.length}`);
  }
  console.log(`  readPeopleCsv, the same with a malformed quote every 100 lines: median ${median(strayReads.map((r) => r.ms)).toFixed(0)} ms`);

  const usernames = Array.from({ length: 5 }, () => time(() => assignUsernames(result.valid, 2026)).ms);
  console.log(`  assignUsernames, 50,000 people: median ${median(usernames).toFixed(0)} ms`);

  // The worst case for suffixes: everyone the same name, with every other suffix already taken.
  const taken = ['johnsmith2026', ...Array.from({ length: 5000 }, (_, i) => `johnsmith2026-${2 * i + 2}`)];
  const sameName = Array.from({ length: 5 }, () =>
    time(() => {
      const allocate = createUsernameAllocator(taken);
      for (let i = 0; i < 50_000; i++) allocate('johnsmith2026');
    }).ms,
  );
  console.log(`  usernames for 50,000 people named John Smith, 5,000 suffixes taken: median ${median(sameName).toFixed(0)} ms`);
}
