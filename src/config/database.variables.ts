import { IsOptional, IsString, Matches, MinLength, ValidateBy } from 'class-validator';
import { IntVariable, itemsOf } from './variables';

/** The variables of PostgreSQL: the primary, its direct connection, the replicas, the pool and its timeouts. */
export class DatabaseVariables {
  /** Unset: the service's own PostgreSQL. Set but empty is refused: read as unset, it would serve an empty database. */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'must be a postgres:// or postgresql:// URL (unset it for the service\'s own PostgreSQL)' })
  DATABASE_URL?: string;

  /** Session connection for the migrations, whose lock a transaction pooler breaks (default DATABASE_URL); its role may own the schema while DATABASE_URL's has only the grants of docs/operations.md. */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'must be a postgres:// or postgresql:// URL' })
  DATABASE_DIRECT_URL?: string;

  /** Streaming replicas for what only reads (public record misses, the changes feed, admin listings), comma-separated. */
  @IsOptional()
  @ValidateBy({
    name: 'isPostgresUrlList',
    validator: {
      validate: (value) => typeof value === 'string' && itemsOf(value).length > 0 && itemsOf(value).every((url) => /^postgres(ql)?:\/\/\S+$/.test(url)),
      defaultMessage: () => 'must be one or more postgres:// URLs, comma-separated',
    },
  })
  DATABASE_READ_URL?: string;

  /** A replica further behind the primary than this is skipped for the primary. */
  @IntVariable(10, 600000)
  DB_READ_MAX_LAG_MS = 1000;

  @IsString()
  @MinLength(1)
  EMBEDDED_DATA_DIR = './data';

  @IntVariable(1, 200)
  DB_POOL_SIZE = 10;

  @IntVariable(100, 60000)
  DB_CONNECT_TIMEOUT_MS = 1500;

  @IntVariable(100, 600000)
  DB_STATEMENT_TIMEOUT_MS = 2000;
}
