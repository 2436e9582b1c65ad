import { readFileSync } from 'node:fs';

/**
 * What the benchmarks read of the machine (Linux /proc; elsewhere each reader answers NaN and the
 * figures built on it print as NaN): other processes' CPU and memory, the whole machine's busy
 * time, and how long this process's main thread waited for a CPU.
 */

/** CPU time of another process in ms (Linux /proc; clock ticks of 10 ms). */
export function processCpuMs(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** Busy CPU time of the whole machine in ms (Linux /proc/stat), to show load from other processes. */
export function machineBusyMs(): number {
  try {
    const [user, nice, system, , , irq, softirq, steal] = (readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
    return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) * 10;
  } catch {
    return Number.NaN;
  }
}

/** Resident memory of another process in MB (Linux /proc). */
export function processRssMb(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/**
 * Time this process's main thread (the event loop) spent runnable but waiting for a CPU, in ms
 * (/proc/self/schedstat: time on a CPU, time waiting on a run queue, in ns). A busy event loop
 * shows as CPU time; a machine with more work than cores shows here.
 */
export function mainThreadWaitMs(): number {
  try {
    const [, waiting] = readFileSync('/proc/self/schedstat', 'utf8').trim().split(/\s+/).map(Number);
    return (waiting ?? Number.NaN) / 1e6;
  } catch {
    return Number.NaN;
  }
}
