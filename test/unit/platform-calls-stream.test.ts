import { describe, expect, it } from 'vitest';
import { chunkPieces, pacedCalls, prefetched } from '../../functions/account-jobs/platform-calls';
import { paceOf } from '../../functions/account-jobs/integration-turn';
import { blockStart } from '../../functions/accounts/account-states';
import { movesOf } from '../../functions/account-actions/account-actions-chunk';
import { filterCount } from '../../functions/account-jobs/selection';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('a chunk read a piece at a time beside its calls', () => {
  it('cuts a chunk where state blocks start, so each block lies in one piece (1 shard and 3 shards, ranges that start mid-block)', () => {
    expect(chunkPieces({ fromRow: 1, toRow: 500 }, 1)).toEqual([
      { fromRow: 1, toRow: 100 },
      { fromRow: 101, toRow: 200 },
      { fromRow: 201, toRow: 300 },
      { fromRow: 301, toRow: 400 },
      { fromRow: 401, toRow: 500 },
    ]);
    for (const [chunk, shards] of [[{ fromRow: 30, toRow: 260 }, 1], [{ fromRow: 1, toRow: 1500 }, 3], [{ fromRow: 77, toRow: 1001 }, 3]] as const) {
      const pieces = chunkPieces(chunk, shards);
      expect(pieces[0]!.fromRow).toBe(chunk.fromRow);
      expect(pieces.at(-1)!.toRow).toBe(chunk.toRow);
      for (let i = 1; i < pieces.length; i++) {
        expect(pieces[i]!.fromRow).toBe(pieces[i - 1]!.toRow + 1);
        // Every piece after the first starts a block; no block is shared by two pieces.
        expect(blockStart(pieces[i]!.fromRow, shards)).toBe(pieces[i]!.fromRow);
      }
    }
  });

  it('reads the first piece at once and the next only once the one before is handed over', async () => {
    const started: number[] = [];
    const release = new Map<number, () => void>();
    const items = prefetched([0, 1, 2], (piece) => {
      started.push(piece);
      return new Promise<number[]>((resolve) => release.set(piece, () => resolve([piece * 10, piece * 10 + 1])));
    });
    // Before anyone reads: the first piece is being read already.
    expect(started).toEqual([0]);
    const seen: number[] = [];
    const reading = (async () => {
      for await (const item of items) seen.push(item);
    })();
    release.get(0)!();
    await tick();
    expect(started).toEqual([0, 1]);
    expect(seen).toEqual([0, 1]);
    release.get(1)!();
    await tick();
    release.get(2)!();
    await reading;
    expect(seen).toEqual([0, 1, 10, 11, 20, 21]);
  });

  it('pacedCalls over arriving items: at most the calls in flight of its pace, every item called once, and what is not read yet is never read when the budget runs out', async () => {
    let inFlight = 0;
    let most = 0;
    const called: number[] = [];
    const later = await pacedCalls({}, paceOf({ concurrency: 4 }), prefetched([0, 1, 2], async (piece) => Array.from({ length: 10 }, (_, i) => piece * 10 + i)), async (item) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await tick();
      inFlight--;
      called.push(item);
      return {};
    });
    expect(later).toBeUndefined();
    expect(most).toBe(4);
    expect(called.sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i));

    let now = 0;
    const loaded: number[] = [];
    const stopped = await pacedCalls(
      { clock: () => now, budgetMs: 1000 },
      paceOf({ concurrency: 1 }, () => now),
      prefetched([0, 1, 2, 3, 4, 5], async (piece) => {
        loaded.push(piece);
        return [piece];
      }),
      async () => {
        now += 600;
        return {};
      },
    );
    expect(stopped).toBe(0);
    // Two calls fit the budget; the third item is taken and left (the piece after it read ahead), the rest never read.
    expect(loaded).toEqual([0, 1, 2, 3]);
  });
});

describe("what an account action's done entry moves on the project's counters", () => {
  it('counts a change of state only', () => {
    expect(movesOf({ isActive: true }, false, false)).toEqual({ movedDeactivated: 1 });
    expect(movesOf({ isActive: false }, false, false)).toEqual({});
    expect(movesOf({}, false, true)).toEqual({ movedDeactivated: 1, movedExpired: 1 });
    expect(movesOf({ isActive: false }, false, true)).toEqual({ movedExpired: 1 });
    expect(movesOf({ isActive: false, expiredAt: '2030-01-01T00:00:00Z' }, true, false)).toEqual({ movedDeactivated: -1, movedExpired: -1 });
    expect(movesOf({ isActive: true }, true, false)).toEqual({});
  });

  it('active and deactivated come from deactivatedCount when the project keeps it, else are left to a count', () => {
    expect(filterCount('deactivated', { accountCount: 10, deactivatedCount: 3 })).toBe(3);
    expect(filterCount('active', { accountCount: 10, deactivatedCount: 3 })).toBe(7);
    expect(filterCount('active', { accountCount: 10 })).toBeUndefined();
  });
});
