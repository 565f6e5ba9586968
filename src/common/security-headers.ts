import helmet from 'helmet';

/** helmet's strict defaults: the security headers of every API answer (not the docs UI's). */
export const apiSecurityHeaders = helmet();
