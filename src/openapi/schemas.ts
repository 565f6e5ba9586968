/** Every response shape of the OpenAPI document, for the controllers that name many of them. */
export * from './responses.schema';
export * from './accounts.schema';
export * from './partners.schema';
export * from './webhooks.schema';
