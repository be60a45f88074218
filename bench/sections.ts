/**
 * Runs the bench's sections one after another so that one failing part never silences the rest:
 * a section that throws, takes too long, or can never finish is reported as
 * `FAILED: <section>: <reason>` and the next one runs.
 *
 * "Can never finish" is the failure that once ended the bench without a word: a section awaiting
 * a promise nothing will ever settle (an 'exit' listener added after the child had already
 * exited). With nothing left running, Node ends the process at the top-level await (exit code 13)
 * and every later figure is lost. Here that moment fails the section instead (see watch).
 */
export interface BenchSection {
  name: string;
  run: () => Promise<void>;
}

export interface SectionFailure {
  name: string;
  reason: string;
}

export interface RunSectionsOptions {
  log?: (line: string) => void;
  /** Longest a section may take. */
  timeoutMs?: number;
}

const duration = (ms: number) => (ms >= 120_000 ? `${Math.round(ms / 60_000)} min` : `${+(ms / 1000).toFixed(1)} s`);

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).trim() || 'failed without a message';

/**
 * Runs one section. Node emits 'beforeExit' when nothing is left that could ever run a callback;
 * if the section is still pending then, nothing can settle it: fail it (scheduling the next
 * section keeps the process going). The time limit's timer is unref'd so it does not itself
 * count as something left to run.
 */
function watch(run: () => Promise<void>, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let done = false;
    const finish = (error?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      process.off('beforeExit', stuck);
      if (error) reject(error);
      else resolve();
    };
    const stuck = () => finish(new Error('it can never finish: it waits for something that nothing left running will do'));
    const deadline = setTimeout(() => finish(new Error(`did not finish within ${duration(timeoutMs)}`)), timeoutMs);
    deadline.unref();
    process.on('beforeExit', stuck);
    run().then(
      () => finish(),
      (error: unknown) => finish(error instanceof Error ? error : new Error(String(error ?? 'rejected without a reason'))),
    );
  });
}

export async function runSections(sections: readonly BenchSection[], options: RunSectionsOptions = {}): Promise<SectionFailure[]> {
  const log = options.log ?? ((line: string) => console.log(line));
  const failures: SectionFailure[] = [];
  for (const section of sections) {
    try {
      await watch(section.run, options.timeoutMs ?? 30 * 60_000);
    } catch (error) {
      const reason = reasonOf(error);
      log(`\nFAILED: ${section.name}: ${reason}`);
      failures.push({ name: section.name, reason });
    }
  }
  if (failures.length === 0) {
    log(`\nAll ${sections.length} bench sections ran.`);
  } else {
    log(`\n${failures.length} of ${sections.length} bench sections failed:`);
    for (const { name, reason } of failures) log(`  ${name}: ${reason.split('\n')[0]}`);
  }
  return failures;
}
