import type { MetricsService } from '../observability/metrics.service';
import { ApiError, type ErrorEntry } from '../common/error-catalogue';

/** A request refused before any work, counted under `reason` in oracle_http_requests_shed_total. */
export function shedRequest(metrics: MetricsService, reason: string, entry: ErrorEntry, detail?: string): ApiError {
  metrics.shed.inc({ reason });
  return new ApiError(entry, detail);
}
