import { describe, expect, it } from 'vitest';
import { assertOutsideTestPorts, inTestPortRange, portsFromEnv } from '../../bin/local/settings';
import { lanePortOffset, MAX_LANES, testStackPorts } from '../support/test-stack';

// The integration and e2e projects' offsets (their global setups), and the shifts worktrees use.
const projects = [10_000, 20_000];
const shifts = Array.from({ length: 9 }, (_, i) => i * 1000);

describe('test stack lanes', () => {
  it("never put two stacks of one worktree on a port, whatever the lane or project", () => {
    for (const shift of shifts) {
      const ports = projects.flatMap((project) => Array.from({ length: MAX_LANES }, (_, lane) => testStackPorts(lanePortOffset(project, shift, lane))).flat());
      expect(new Set(ports).size).toBe(ports.length);
    }
  });

  it('add no port two worktrees share: worktrees whose first stacks meet nowhere meet nowhere in any lane', () => {
    const portsOf = (shift: number, lanes: number) => new Set(projects.flatMap((project) => Array.from({ length: lanes }, (_, lane) => testStackPorts(lanePortOffset(project, shift, lane))).flat()));
    const shared = (a: Set<number>, b: Set<number>) => [...a].filter((port) => b.has(port));
    let apart = 0;
    for (const a of shifts) {
      for (const b of shifts.filter((s) => s > a)) {
        // Some shifts already meet without lanes (3000's app port is 8000's DynamoDB port, 5000 apart): not the lanes' doing.
        if (shared(portsOf(a, 1), portsOf(b, 1)).length > 0) continue;
        apart++;
        expect(shared(portsOf(a, MAX_LANES), portsOf(b, MAX_LANES)), `shifts ${a} and ${b}`).toEqual([]);
      }
    }
    expect(apart).toBeGreaterThan(20);
  });

  it('keeps every port a port', () => {
    const highest = Math.max(...projects.flatMap((project) => testStackPorts(lanePortOffset(project, shifts.at(-1)!, MAX_LANES - 1))));
    expect(highest).toBeLessThanOrEqual(65_535);
  });
});

describe('test stacks and npm start never share a port', () => {
  it('every test stack port, in every lane and shift, lies in the range npm start refuses', () => {
    for (const shift of shifts) {
      for (const project of projects) {
        for (let lane = 0; lane < MAX_LANES; lane++) {
          for (const port of testStackPorts(lanePortOffset(project, shift, lane))) expect(inTestPortRange(port), `port ${port}`).toBe(true);
        }
      }
    }
  });

  it("npm start's own ports, by default and with the offsets the docs name, lie outside it", () => {
    for (const offset of [0, 100, 40_000]) expect(() => assertOutsideTestPorts(portsFromEnv({}, offset))).not.toThrow();
  });

  it('refuses LOCAL_PORT_OFFSET=20000 (the first e2e lane) or a single port there, naming the ports and what to set', () => {
    expect(() => assertOutsideTestPorts(portsFromEnv({ LOCAL_PORT_OFFSET: '20000' }))).toThrow(/port 23000 \(web app and local API gateway, APP_PORT\)[\s\S]*LOCAL_PORT_OFFSET=40000/);
    expect(() => assertOutsideTestPorts(portsFromEnv({ SCIM_PORT: '19250' }))).toThrow(/port 19250 \(SCIM directory, SCIM_PORT\)/);
  });
});
