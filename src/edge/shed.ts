import type { Response } from 'express';
import type { MetricsService } from '../observability/metrics.service';
import { ApiError, type ErrorEntry } from '../common/error-catalogue';

/**
 * A request refused before any work (a limit of the process, its connection or its client):
 * counted under `reason` in oracle_http_requests_shed_total, told to come back in a second
 * (Retry-After), and the error to throw for its envelope.
 */
export function shedRequest(metrics: MetricsService, res: Response, reason: string, entry: ErrorEntry, detail?: string): ApiError {
  metrics.shed.inc({ reason });
  res.setHeader('Retry-After', '1');
  return new ApiError(entry, detail);
}
