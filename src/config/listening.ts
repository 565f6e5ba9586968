import { isIP } from 'node:net';

/** Where the zero-setup server listens unless HOST says otherwise: its printed demo keys are for this machine (contract §5). */
export const LOOPBACK = '127.0.0.1';

/** Whether only this machine can reach `host` (127.0.0.0/8, ::1, localhost). */
export function isLoopback(host: string): boolean {
  if (host.toLowerCase() === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return isIP(host) === 6 && /^(0{0,4}:){2,7}0{0,3}1$|^::1$/.test(host);
}

/** Why a listener on `host` could not open, when HOST is the reason (a listen error's code). */
export function hostProblem(host: string | undefined, code: string | undefined): string | null {
  if (host === undefined || (code !== 'EADDRNOTAVAIL' && code !== 'ENOTFOUND')) return null;
  return `HOST ${host} is no address of this machine: set HOST to one of its addresses, or unset it`;
}

/** Where a listener is, for the log: `127.0.0.1:3000`, `[::1]:3000`, or `port 3000 (every interface)` (host undefined). */
export function listenAddress(host: string | undefined, port: number): string {
  if (host === undefined) return `port ${port} (every interface)`;
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}
