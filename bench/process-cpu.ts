import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The kernel's clock ticks per second (USER_HZ), in which /proc reports CPU time. */
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));

/** utime + stime of a process, seconds (Linux /proc; every thread of the process). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}
