/** Loading what a view shows from the admin API, once per change of what it depends on. */
import { useEffect } from 'preact/hooks';

/** Runs `load` when `deps` change and hands its answer to `set`, ignoring answers that came too late. */
export function useLoad<T>(
  load: () => Promise<T> | undefined,
  set: (v: T) => void,
  onError: (m: string) => void,
  deps: unknown[],
) {
  useEffect(() => {
    let live = true;
    load()
      ?.then((v) => live && set(v))
      .catch((e: Error) => live && onError(e.message));
    return () => {
      live = false;
    };
  }, deps);
}

/** For a load whose failure leaves the view as it was (an optional part, such as team names). */
export const ignore = (): void => undefined;
