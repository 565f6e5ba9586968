import { SetMetadata } from '@nestjs/common';
import { routeMetadata } from './route-metadata';

export const RAW_RESPONSE = 'response:raw';

/**
 * The route answers in its own format with real HTTP status codes, outside the envelope:
 * the ops endpoints (health probes, metrics), which probes and scrapers read (contract §1).
 */
export const RawResponse = () => SetMetadata(RAW_RESPONSE, true);

/** Whether the route answers outside the envelope (RawResponse). */
export const isRawResponse = routeMetadata<boolean>(RAW_RESPONSE);
