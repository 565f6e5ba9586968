/** The caller's account as GET /admin/me answers it (the back office page reads it too). */
export interface AccountView {
  /** The reviewer account's id; null for the master key, which is no account. */
  id: number | null;
  name: string;
  role: 'admin' | 'reviewer';
}
