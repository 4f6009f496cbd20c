/**
 * A wait on something outside the process, with a deadline: `work`'s outcome, or the error `late()` makes once `ms`
 * pass first. Each caller names what it waited for in its own error type (a step's PerfError, a WebDriver command's
 * WebDriverError). The timer never outlives the race, and `work` settling after the deadline is not an unhandled
 * rejection.
 */
export async function within<T>(work: Promise<T>, ms: number, late: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
    work.catch(() => undefined);
  }
}
