import { LRUCache } from 'lru-cache';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** Per turn before every connection pauses: unbounded, a turn's memory grows with the connections (docs/operations.md). */
export const REQUESTS_PARSED_PER_TURN = 512;

/** Client addresses whose last turn is remembered (the least recently seen are forgotten first). */
const ADDRESSES_REMEMBERED = 10_000;

/** The longest new connections wait for the connections queued to be accepted (see ReadGate). */
const MAX_NEW_HOLD_MS = 250;

// Past REQUESTS_PARSED_PER_TURN, every connection being read pauses until the next turn, then resumes in a fair order.
// libuv accepts one connection per turn, so after a full turn new connections are held unread until a turn accepts
// none or MAX_NEW_HOLD_MS pass: newcomers do not wait behind every queued connection's long turn.
export class ReadGate {
  private readonly connections = new Set<Socket>();
  /** Connections that have had requests parsed. */
  private readonly known = new WeakSet<Socket>();
  /** The turn since which each held connection has not been read. */
  private readonly waitingSince = new WeakMap<Socket, number>();
  /** The turn in which each address last had a request parsed. */
  private readonly addressRead = new LRUCache<string, number>({ max: ADDRESSES_REMEMBERED });
  private turn = 0;
  private parsed = 0;
  private newParsed = false;
  private closed: Socket[] | null = null;
  /** Holding new connections: since when, and whether one was accepted since the last turn. */
  private holdingNewSince: number | null = null;
  private accepted = false;
  private newHeld: Socket[] = [];

  constructor(private readonly limit = REQUESTS_PARSED_PER_TURN) {}

  watch(server: Server): void {
    server.on('connection', (socket: Socket) => {
      this.connections.add(socket);
      socket.once('close', () => this.connections.delete(socket));
      this.accepted = true;
      if (this.closed || this.holdingNewSince !== null) this.hold(socket);
    });
  }

  requestParsed(socket: Socket): void {
    if (!this.known.has(socket)) {
      this.known.add(socket);
      this.newParsed = true;
    }
    this.waitingSince.delete(socket);
    this.addressRead.set(socket.remoteAddress ?? '', this.turn);
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
    if (this.closed) this.closed.push(socket);
    else this.newHeld.push(socket);
  }

  private open(): void {
    const held = [...(this.closed ?? []), ...this.newHeld];
    const startHolding = this.closed !== null && this.newParsed && this.holdingNewSince === null;
    this.turn++;
    this.parsed = 0;
    this.closed = null;
    this.newHeld = [];
    this.newParsed = false;
    if (startHolding) {
      this.holdingNewSince = performance.now();
      this.accepted = false;
      setImmediate(() => this.releaseNewOnceAccepted());
    }
    if (this.holdingNewSince === null) return this.resumeInOrder(held);
    this.resumeInOrder(held.filter((socket) => this.known.has(socket)));
    this.newHeld = held.filter((socket) => !this.known.has(socket));
  }

  /** Once a turn accepts no connection (or MAX_NEW_HOLD_MS have passed), the held new connections are read. */
  private releaseNewOnceAccepted(): void {
    if (this.accepted && performance.now() - this.holdingNewSince! < MAX_NEW_HOLD_MS) {
      this.accepted = false;
      setImmediate(() => this.releaseNewOnceAccepted());
      return;
    }
    this.holdingNewSince = null;
    if (this.closed) return; // a full turn is under way: its open() resumes them
    const held = this.newHeld;
    this.newHeld = [];
    this.resumeInOrder(held);
  }

  // The kernel hands ready connections over in resume order: the address read least recently first, then known before
  // new, longest held first. An address opening thousands of connections takes one turn in two, not every turn.
  private resumeInOrder(held: Socket[]): void {
    const rank = (socket: Socket) => [
      this.addressRead.get(socket.remoteAddress ?? '') ?? -1,
      this.known.has(socket) ? 0 : 1,
      this.waitingSince.get(socket)!,
    ];
    const ranked = held.map((socket) => ({ socket, rank: rank(socket) }));
    ranked.sort((a, b) => a.rank[0] - b.rank[0] || a.rank[1] - b.rank[1] || a.rank[2] - b.rank[2]);
    for (const { socket } of ranked) if (!socket.destroyed) socket.resume();
  }
}
