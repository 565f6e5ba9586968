import pg from 'pg';
import { poolOptions, type DatabaseSettings } from './data-source-options';

/** The injection token of the service's pg pool (Sql runs every statement on it). */
export const DATABASE_POOL = Symbol('DATABASE_POOL');

/** The service's pool, once one connection to the database has been made through it. */
export async function openPool(settings: DatabaseSettings): Promise<pg.Pool> {
  const pool = new pg.Pool(poolOptions(settings));
  // An idle connection that fails is dropped by the pool; unheard, the event would end the process.
  pool.on('error', () => undefined);
  try {
    (await pool.connect()).release();
    return pool;
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
}
