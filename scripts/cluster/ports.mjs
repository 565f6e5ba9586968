// Loopback ports of the cluster's own: from the OS (never 5432 or 6379, which belong to the
// machine's services), or consecutive from a base the caller chose (--port-base).
import { createServer } from 'node:net';

function listenOn(port) {
  return new Promise((resolvePort) => {
    const server = createServer();
    server.once('error', () => resolvePort(null));
    server.listen(port, '127.0.0.1', () => resolvePort(server));
  });
}

/** `count` distinct free ports; all held open together while they are chosen. */
export async function freePorts(count, base) {
  const held = [];
  try {
    for (let candidate = base ?? 0; held.length < count; candidate += base ? 1 : 0) {
      if (base && candidate > 65535) throw new Error(`not enough free ports from ${base}`);
      const server = await listenOn(candidate);
      if (server) held.push(server);
    }
    return held.map((server) => server.address().port);
  } finally {
    await Promise.all(held.map((server) => new Promise((done) => server.close(done))));
  }
}
