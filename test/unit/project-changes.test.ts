import { describe, expect, it } from 'vitest';
import { counterMoves } from '../../functions/projects/project-changes';

/** What each move adds, by item and attribute: the analytics counters a project change touches. */
const adds = (moves: ReturnType<typeof counterMoves>) =>
  Object.fromEntries(
    moves.map(({ Update }) => {
      const u = Update as { Key: { SK: string }; ExpressionAttributeNames: { '#n': string }; ExpressionAttributeValues: { ':n': number } };
      return [`${u.Key.SK} ${u.ExpressionAttributeNames['#n']}`, u.ExpressionAttributeValues[':n']];
    }),
  );

describe('counterMoves: a project between the expiration-date counters and completedProjects', () => {
  it('moves an active project to its new date, and from a date to none', () => {
    expect(adds(counterMoves('t', 'u', { status: 'active', expirationDate: '2099-01-01' }, { status: 'active', expirationDate: '2099-06-30' }))).toEqual({
      'STATS#EXPIRES#2099-01-01 projects': -1,
      'STATS#EXPIRES#2099-06-30 projects': 1,
    });
    expect(adds(counterMoves('t', 'u', { status: 'active', expirationDate: '2099-01-01' }, { status: 'active' }))).toEqual({ 'STATS#EXPIRES#2099-01-01 projects': -1 });
    expect(counterMoves('t', 'u', { status: 'active', expirationDate: '2099-01-01' }, { status: 'active', expirationDate: '2099-01-01' })).toEqual([]);
  });

  it('completing takes it off its date and counts it completed; reopening puts it back', () => {
    const complete = adds(counterMoves('t', 'u', { status: 'active', expirationDate: '2099-01-01' }, { status: 'completed', expirationDate: '2099-01-01' }));
    expect(complete).toEqual({ 'STATS#EXPIRES#2099-01-01 projects': -1, 'STATS#TOTAL completedProjects': 1 });
    const reopen = adds(counterMoves('t', 'u', { status: 'completed', expirationDate: '2099-01-01' }, { status: 'active', expirationDate: '2099-01-01' }));
    expect(reopen).toEqual({ 'STATS#EXPIRES#2099-01-01 projects': 1, 'STATS#TOTAL completedProjects': -1 });
  });

  it('a completed project’s new date moves nothing (it is not counted under a date)', () => {
    expect(counterMoves('t', 'u', { status: 'completed', expirationDate: '2099-01-01' }, { status: 'completed', expirationDate: '2100-01-01' })).toEqual([]);
  });
});
