// Redis for the shared rate-limit counts: its own port, no persistence.
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isOwned, spawnOwned, stopPids, tail } from './processes.mjs';
import { saveState } from './state.mjs';

const REDIS_SERVER = process.env.CLUSTER_REDIS_SERVER ?? '/usr/bin/redis-server';

function ping(port) {
  return new Promise((resolvePing) => {
    const socket = connect(port, '127.0.0.1');
    socket.setTimeout(1_000, () => socket.destroy());
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      resolvePing(chunk.toString().startsWith('+PONG'));
      socket.destroy();
    });
    socket.on('error', () => resolvePing(false));
    socket.on('close', () => resolvePing(false));
  });
}

export async function startRedis(state) {
  const log = join(state.logDir, 'redis.log');
  // set-proc-title no: Redis's title would overwrite its environment, and with it the mark --down finds it by.
  const args = ['--port', String(state.ports.redis), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no', '--dir', state.dir, '--set-proc-title', 'no'];
  const pid = spawnOwned(state, { program: REDIS_SERVER, args, log });
  state.pids.redis = pid;
  await saveState(state);
  const deadline = Date.now() + 10_000;
  while (!(await ping(state.ports.redis))) {
    if (!isOwned(pid, state.dir)) throw new Error(`Redis exited:\n${tail(log)}`);
    if (Date.now() > deadline) throw new Error(`Redis did not answer PING within 10 s:\n${tail(log)}`);
    await sleep(100);
  }
}

export async function stopRedis(state) {
  await stopPids(state.dir, [state.pids.redis], 'SIGTERM', 5_000);
  delete state.pids.redis;
  await saveState(state);
}
