/** Long enough for any delivery already on its way to arrive. */
export const settle = (ms = 2_000) => new Promise((resolve) => setTimeout(resolve, ms));

/** Retries `check` until it passes, for up to `ms` (10 s). */
export async function eventually(check: () => Promise<void>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (failure) {
      if (Date.now() > deadline) throw failure;
      await settle(200);
    }
  }
}
