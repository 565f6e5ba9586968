/** The back office's account, key and audit shapes, for the controllers that name many of them. */
export * from './responses.schema';
export * from './accounts.schema';
export * from './partners.schema';
