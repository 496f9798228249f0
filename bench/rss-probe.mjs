/**
 * Preloaded (`--import`) into a process whose peak memory a benchmark wants
 * when GNU time is not installed: writes `process.resourceUsage().maxRSS`
 * (kilobytes) to the file named by BENCH_RSS_FILE when the process exits.
 * Plain JavaScript, so that it also preloads into the built CLI, without tsx.
 */
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_RSS_FILE;
if (file) process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS)));
