import { describe, expect, it } from 'vitest';
import { pacerFor } from '../../functions/mail/send-credentials';

/**
 * The mail workers' pacing at SES's default 14 e-mails a second over the mail queue's two
 * concurrent invocations: each invocation is a new pacer (a chunk's delivery), one after another
 * in each of two chains, and no one-second window (closed) may hold more than 14 sends.
 */
async function runChain(startMs: number, invocations: number, sendsEach: number, rate: number, workers: number): Promise<number[]> {
  let now = startMs;
  const clock = () => now;
  const sleep = async (ms: number) => void (now += ms);
  const times: number[] = [];
  for (let i = 0; i < invocations; i++) {
    // A new delivery starts the moment the last one ended (its last send just before).
    const pacer = pacerFor(rate, workers, clock, sleep);
    for (let k = 0; k < sendsEach; k++) {
      await pacer.take();
      times.push(now);
      // Some work between sends (SES's answer, a write) of varying length.
      now += (k * 7) % 23;
    }
  }
  return times;
}

const busiestSecond = (times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  let busiest = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[j]! < sorted[i]! - 1000) j++;
    busiest = Math.max(busiest, i - j + 1);
  }
  return busiest;
};

describe('mail pacing across workers', () => {
  it('never passes 14 sends in any one-second window, new deliveries included, and keeps close to the rate', async () => {
    const a = await runChain(0, 8, 40, 14, 2);
    const b = await runChain(37, 8, 40, 14, 2);
    const all = [...a, ...b];
    expect(busiestSecond(a)).toBeLessThanOrEqual(7);
    expect(busiestSecond(all)).toBeLessThanOrEqual(14);
    // 640 sends at 14/s take at least 45.7 s; the pacing costs a few per cent more, not double.
    const span = Math.max(...all) - Math.min(...all);
    expect(span / 1000).toBeLessThan((640 / 14) * 1.1);
  });

  it('a throttled answer holds every send of the worker', async () => {
    let now = 0;
    const pacer = pacerFor(0, 2, () => now, async (ms) => void (now += ms));
    await pacer.take();
    pacer.holdFor(1500);
    await pacer.take();
    expect(now).toBe(1500);
  });
});
