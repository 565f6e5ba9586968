import type { DataSource } from 'typeorm';
import { APPEND_MARKET_EVENT_FUNCTION, CHANGE_LOG_POLL_FUNCTION } from '../changes/change-log.functions';
import { MARKET_ITEM_FUNCTION } from '../markets/market-item';
import { FILE_DISPUTE_FUNCTION } from '../disputes/file-dispute.function';

/**
 * The SQL functions the service calls, each defined in one source file beside the code that
 * calls it, applied (CREATE OR REPLACE) after the migrations, every time they run: the database
 * always has the definitions of the release. In dependency order. A migration creates tables and
 * drops what a function no longer needs (an overload whose signature changed).
 */
const SQL_FUNCTIONS = [MARKET_ITEM_FUNCTION, APPEND_MARKET_EVENT_FUNCTION, CHANGE_LOG_POLL_FUNCTION, FILE_DISPUTE_FUNCTION];

export async function applySqlFunctions(dataSource: DataSource): Promise<void> {
  await dataSource.transaction(async (manager) => {
    for (const definition of SQL_FUNCTIONS) await manager.query(definition);
  });
}
