/**
 * Optional peer dependencies, loaded only when their feature is configured: a project that
 * uses neither a store nor Redis never installs nor loads them.
 */

export class StoreConfigError extends Error {
  override name = 'StoreConfigError';
}

/** Whether an import failed because the package is not installed (not because it is broken). */
function notInstalled(err: unknown, name: string): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && String(err).includes(name);
}

/** `load()` (a dynamic import of `name`), or an error that names the feature and the line that installs it. */
export async function loadOptional<T>(name: string, feature: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (notInstalled(err, name)) {
      throw new StoreConfigError(`${feature} needs the package ${name}, which is not installed: npm i -D ${name}`);
    }
    throw err;
  }
}
