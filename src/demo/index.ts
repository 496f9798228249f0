/**
 * The deterministic demo space: a realistic multi-language space directory
 * for the local service, the sync engine, type inference and the example site.
 */
import { writeSpaceDirectory, type Manifest } from '../snapshot/index.js';
import { generateDemoSpace, type DemoOptions } from './generate.js';

export { generateDemoSpace, type DemoOptions } from './generate.js';

/** Generates the demo space and writes it as a space directory at `dir`, replacing what was there. */
export async function writeDemoSpace(dir: string, options: DemoOptions): Promise<Manifest> {
  return writeSpaceDirectory(dir, generateDemoSpace(options));
}
