/**
 * The small files the plugin keeps beside the snapshot between runs (the space directory's origin,
 * the running service): written whole or not at all (writeWhole), so a reader never sees half of
 * one. A write that fails costs the work the file would have saved, nothing more.
 */
import { writeWhole } from '../snapshot/index.js';

/** Writes `text` to `file` whole (with `mode`, when given); false when it could not. */
export function keepFile(file: string, text: string, mode?: number): boolean {
  try {
    writeWhole(file, text, mode);
    return true;
  } catch {
    return false;
  }
}
