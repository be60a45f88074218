import fs from 'node:fs';

/**
 * CPU time of processes, read from /proc (Linux): what a job costs the machine beside its wall
 * time, which on a shared machine moves with everyone else's load. `cpuMeter(pids)` starts a
 * reading; `read()` gives each process's CPU seconds (user + system) since then. A process that
 * is gone (or /proc absent) reads as 0.
 */
const TICKS_PER_SECOND = 100;

function cpuTicks(pid: number): number {
  try {
    // Fields after the command's closing parenthesis: state is field 3, utime 14, stime 15.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

export function cpuMeter(pids: Record<string, number | undefined>): { read: () => Record<string, number> } {
  const start = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, pid ? cpuTicks(pid) : 0]));
  return {
    read: () => Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, ((pid ? cpuTicks(pid) : 0) - start[name]!) / TICKS_PER_SECOND])),
  };
}

export const cpuText = (seconds: Record<string, number>): string =>
  Object.entries(seconds)
    .map(([name, s]) => `${name} ${s.toFixed(1)} s`)
    .join(', ');

/** The DynamoDB Local JVM this process started (the local stack's child), or undefined. */
export function dynamoDbPid(): number | undefined {
  for (const name of fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === process.pid && fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').includes('DynamoDBLocal')) return Number(name);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}
