/**
 * Preloaded (`--import`) into a process whose peak memory a benchmark wants
 * when GNU time is not installed: writes `process.resourceUsage().maxRSS`
 * (kilobytes) to the file named by BENCH_RSS_FILE when the process exits, and
 * the process's CPU time (all threads; user and system, in microseconds, space
 * separated) to the file named by BENCH_CPU_FILE when that is set.
 * Plain JavaScript, so that it also preloads into the built CLI, without tsx.
 */
import { writeFileSync } from 'node:fs';

const rssFile = process.env.BENCH_RSS_FILE;
const cpuFile = process.env.BENCH_CPU_FILE;
process.on('exit', () => {
  const usage = process.resourceUsage();
  if (rssFile) writeFileSync(rssFile, String(usage.maxRSS));
  if (cpuFile) writeFileSync(cpuFile, `${usage.userCPUTime} ${usage.systemCPUTime}`);
});
