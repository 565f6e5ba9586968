// bench/proc.mjs: CPU time of processes, from Linux's /proc (null elsewhere): a server's own, and
// a PostgreSQL server's as a whole (the postmaster and every backend it forked).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ: 100 on Linux x86 and arm). */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** { ppid, own, children } of a process, CPU in seconds (own: utime + stime, every thread); null if gone. */
function stat(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name (in parentheses, it may hold spaces): state is field 3,
    // ppid 4, utime/stime 14/15, cutime/cstime (children waited for) 16/17.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const at = (field) => Number(fields[field - 3]);
    return { ppid: at(4), own: (at(14) + at(15)) / CLOCK_TICKS, children: (at(16) + at(17)) / CLOCK_TICKS };
  } catch {
    return null;
  }
}

/** CPU seconds process `pid` has used so far; null once it has exited or off Linux. */
export function cpuSeconds(pid) {
  return stat(pid)?.own ?? null;
}

/**
 * CPU seconds a PostgreSQL server has used so far: its postmaster, the processes it has forked
 * and still runs (backends, background workers) and those it has reaped. null if not on this host.
 */
export function postgresCpuSeconds(postmasterPid) {
  const postmaster = stat(postmasterPid);
  if (!postmaster) return null;
  let total = postmaster.own + postmaster.children;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const child = stat(entry);
    if (child?.ppid === postmasterPid) total += child.own + child.children;
  }
  return total;
}

/** The postmaster of the PostgreSQL server whose backend has pid `backendPid`, if it runs on this host. */
export function postmasterOf(backendPid) {
  const parent = stat(backendPid)?.ppid;
  if (!parent) return null;
  try {
    return /^postgres|^postmaster/.test(readFileSync(`/proc/${parent}/comm`, 'utf8')) ? parent : null;
  } catch {
    return null;
  }
}
