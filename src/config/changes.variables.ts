import { IntVariable } from './variables';

/** The variables of the change log, its feed and the public record cache it keeps fresh. */
export class ChangesVariables {
  /** How long a cached public record may be served; the safety net behind eviction on change. 0: no cache. */
  @IntVariable(0, 60000)
  PUBLIC_CACHE_TTL_MS = 30000;

  /** Without the change signal, how often an instance whose record cache is used reads a quiet change log (every 5 ms while events come): a write on another instance waits up to about this before its answer. */
  @IntVariable(10, 10000)
  CHANGES_POLL_INTERVAL_MS = 25;

  /** A change log read that long ago, or an event that long without its sequence: the public record cache is bypassed. */
  @IntVariable(100, 60000)
  CHANGES_DEAF_AFTER_MS = 1000;

  /** Events are kept at least this many days; an older changes cursor gets 4102. */
  @IntVariable(1, 3650)
  CHANGES_RETENTION_DAYS = 90;

  /** Long polls of the changes feed held at once for one API key; beyond, 4290. */
  @IntVariable(1, 1000)
  CHANGES_WAITS_PER_KEY = 10;

  /** Long polls of the changes feed held at once by the instance; beyond, 4290. */
  @IntVariable(1, 100000)
  CHANGES_WAITS_MAX = 1000;

  @IntVariable(1, 1000000)
  PUBLIC_CACHE_MAX_ENTRIES = 5000;

  /** Memory the cached public records may take (estimated: 2 bytes per character of their JSON). */
  @IntVariable(1048576, 1073741824)
  PUBLIC_CACHE_MAX_BYTES = 16777216;
}
