import { IntVariable } from './variables';

/** The variables of the process's own limits. */
export class EdgeVariables {
  /** Requests in progress on one connection (pipelined); beyond it, 4290 and the connection closes. Below DB_POOL_SIZE. */
  @IntVariable(1, 1000)
  MAX_REQUESTS_PER_CONNECTION = 8;

  /** Requests in progress in this process once their bodies are read; beyond it, 5031 "server busy". */
  @IntVariable(1, 100000)
  MAX_REQUESTS_IN_FLIGHT = 256;

  /** Bytes of request bodies (by declared length) held in this process at once; beyond it, 5031 "server busy". */
  @IntVariable(65536, 1073741824)
  MAX_BODY_BYTES_IN_FLIGHT = 8388608;

  /** Bytes of answers written and not yet taken by their connections; beyond it, 5031 (4290 for an address past a quarter). */
  @IntVariable(1048576, 1073741824)
  MAX_UNREAD_ANSWER_BYTES = 8388608;
}
