import { call } from './api';
import type { Account } from './types';

// sessionStorage: the key lives as long as the tab does (and is cleared on sign out), never
// in localStorage, a cookie or a URL.
const STORAGE_KEY = 'back-office.key';

export const storedKey = (): string | null => sessionStorage.getItem(STORAGE_KEY);
export const storeKey = (key: string): void => sessionStorage.setItem(STORAGE_KEY, key);
export const forgetKey = (): void => sessionStorage.removeItem(STORAGE_KEY);

/** The account behind a key, with its role, asked of the API itself (ADMIN_CREDENTIALS_INVALID: no valid key). */
export const accountOf = (key: string): Promise<Account> => call<Account>(key, 'GET', '/admin/me');
