/**
 * The Vite majors the plugin supports, for tests that run in each: the current one (`vite`) and
 * the one before (`vite7`, an alias in the dev dependencies).
 */
import * as vite8 from 'vite';
import * as vite7 from 'vite7';

export const VITE_MAJORS = [
  ['7', vite7 as unknown as typeof vite8],
  ['8', vite8],
] as const;
