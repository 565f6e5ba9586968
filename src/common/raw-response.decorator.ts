import { SetMetadata } from '@nestjs/common';
import { routeMetadata } from './route-metadata';

export const RAW_RESPONSE = 'response:raw';

/** Answers outside the envelope with real HTTP statuses: ops endpoints that probes and scrapers read (contract §1). */
export const RawResponse = () => SetMetadata(RAW_RESPONSE, true);

export const isRawResponse = routeMetadata<boolean>(RAW_RESPONSE);
