import { describe, expect, it } from 'vitest';
import { JOB_POLL_MAX_MS, JOB_POLL_MS, jobPollInterval } from '../../frontend/src/lib/job-polling';

describe('jobPollInterval (job progress: bulk creation and provisioning)', () => {
  it('polls every second at first, so a small job shows its end at once', () => {
    for (const answers of [0, 1, 2, 3, 4, 5]) expect(jobPollInterval(answers)).toBe(JOB_POLL_MS);
    expect(JOB_POLL_MS).toBe(1000);
  });

  it('then waits longer after each answer, never less than before, up to 5 s', () => {
    const waits = Array.from({ length: 40 }, (_, answers) => jobPollInterval(answers));
    for (let i = 1; i < waits.length; i++) expect(waits[i]).toBeGreaterThanOrEqual(waits[i - 1]!);
    expect(waits.slice(6, 12).every((wait) => wait > JOB_POLL_MS && wait < JOB_POLL_MAX_MS)).toBe(true);
    expect(waits.slice(13)).toEqual(Array(27).fill(5000));
  });

  it('reaches the 5 s pace about 25 s into a job and asks about a quarter as often over three minutes', () => {
    const schedule = (seconds: number) => {
      let elapsed = 0;
      let polls = 0;
      while (elapsed < seconds * 1000) elapsed += jobPollInterval(polls++);
      return polls;
    };
    let elapsed = 0;
    let answers = 0;
    while (jobPollInterval(answers) < JOB_POLL_MAX_MS) elapsed += jobPollInterval(answers++);
    expect(elapsed).toBeGreaterThan(20_000);
    expect(elapsed).toBeLessThan(30_000);
    // A three-minute job: 180 polls at one a second, about 45 now.
    expect(schedule(180)).toBeGreaterThan(40);
    expect(schedule(180)).toBeLessThan(50);
  });
});
