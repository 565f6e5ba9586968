import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Requests Node may parse in one turn of the event loop before every connection stops being
 * read until the next turn. Node parses each 64 KiB read whole (up to ~3,600 pipelined requests,
 * ~2 KB of objects each), and one turn reads every connection that has data: without a bound,
 * the memory of a turn grows with the number of connections (docs/operations.md).
 */
export const REQUESTS_PARSED_PER_TURN = 512;

/**
 * Bounds what one turn of the event loop parses, whatever the number of connections: once
 * REQUESTS_PARSED_PER_TURN requests have been parsed, every connection that is being read stops
 * being read (libuv then skips their pending reads of this turn; TCP holds the rest in the
 * clients' and the kernel's buffers), and they are read again from the next turn on. The kernel hands
 * over ready connections in the order they are resumed: connections read before (a flooding
 * one is closed after its first read past its limit) go first, those held longest first, then
 * new ones in the order they came, so a known client waits a turn, not for every new flood.
 */
export class ReadGate {
  private readonly connections = new Set<Socket>();
  /** Connections that have had requests parsed. */
  private readonly known = new WeakSet<Socket>();
  /** The turn since which each held connection has not been read. */
  private readonly waitingSince = new WeakMap<Socket, number>();
  private turn = 0;
  private parsed = 0;
  private closed: Socket[] | null = null;

  constructor(private readonly limit = REQUESTS_PARSED_PER_TURN) {}

  /** Tracks the connections of `server`. */
  watch(server: Server): void {
    server.on('connection', (socket: Socket) => {
      this.connections.add(socket);
      socket.once('close', () => this.connections.delete(socket));
      // A connection opened while the gate is closed waits for the next turn too.
      if (this.closed) this.hold(socket);
    });
  }

  /** Node parsed a request of `socket`. */
  requestParsed(socket: Socket): void {
    this.known.add(socket);
    this.waitingSince.delete(socket);
    if (this.parsed++ === 0) setImmediate(() => this.open());
    if (this.parsed >= this.limit && !this.closed) this.close();
  }

  private close(): void {
    this.closed = [];
    for (const socket of this.connections) this.hold(socket);
  }

  private hold(socket: Socket): void {
    // Only connections being read: one paused for its own reasons stays as it is after the turn.
    if (!socket.readableFlowing || socket.destroyed) return;
    socket.pause();
    if (!this.waitingSince.has(socket)) this.waitingSince.set(socket, this.turn);
    this.closed!.push(socket);
  }

  private open(): void {
    this.turn++;
    this.parsed = 0;
    const held = this.closed ?? [];
    this.closed = null;
    for (const socket of this.fairOrder(held)) if (!socket.destroyed) socket.resume();
  }

  /**
   * Known connections first, longest held first; then new ones in rounds over their client
   * addresses (each address's oldest, then each one's second...), so that an address opening
   * connections by the thousand delays another's new connection by one of them, not all.
   */
  private fairOrder(held: Socket[]): Socket[] {
    const since = (socket: Socket) => this.waitingSince.get(socket)!;
    const known = held.filter((socket) => this.known.has(socket)).sort((a, b) => since(a) - since(b));
    const byAddress = new Map<string | undefined, Socket[]>();
    for (const socket of held.filter((socket) => !this.known.has(socket)).sort((a, b) => since(a) - since(b))) {
      const queue = byAddress.get(socket.remoteAddress);
      if (queue) queue.push(socket);
      else byAddress.set(socket.remoteAddress, [socket]);
    }
    const queues = [...byAddress.values()];
    const rounds: Socket[] = [];
    for (let round = 0; rounds.length < held.length - known.length; round++) {
      for (const queue of queues) if (round < queue.length) rounds.push(queue[round]);
    }
    return [...known, ...rounds];
  }
}
