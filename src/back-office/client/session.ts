import { ApiFailure, call } from './api';
import type { Role } from './types';

// sessionStorage: the key lives as long as the tab does (and is cleared on sign out), never
// in localStorage, a cookie or a URL.
const STORAGE_KEY = 'back-office.key';

export const storedKey = (): string | null => sessionStorage.getItem(STORAGE_KEY);
export const storeKey = (key: string): void => sessionStorage.setItem(STORAGE_KEY, key);
export const forgetKey = (): void => sessionStorage.removeItem(STORAGE_KEY);

/**
 * The role behind a key, asked of the API itself: any valid key may read the dispute counts
 * (else 4012), and only an admin's may read the audit trail (else 4031).
 */
export async function roleOf(key: string): Promise<Role> {
  await call(key, 'GET', '/admin/disputes/counts');
  try {
    await call(key, 'GET', '/admin/audit?limit=1');
    return 'admin';
  } catch (error) {
    if (error instanceof ApiFailure && error.code === 4031) return 'reviewer';
    throw error;
  }
}
