/** The back office's roles: `admin` does everything, `reviewer` reads disputes and records decisions. */
export const ADMIN_ROLES = ['admin', 'reviewer'] as const;
export type AdminRole = (typeof ADMIN_ROLES)[number];

/** The roles a route admits (@Roles), as AdminGuard reads them. */
export const ROLES = 'auth:roles';
