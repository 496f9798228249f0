/**
 * storyblok-js-client fetching a whole space the way its users do, for the
 * `sync` benchmark: `node --import tsx bench/storyblok-fetch.ts URL TOKEN LANG...`
 * (`default` for the default language). Prints one JSON line: what it got
 * and how long it took.
 */
import StoryblokClient from 'storyblok-js-client';

const [url, accessToken, ...languages] = process.argv.slice(2);
if (!url || !accessToken || !languages.length) {
  console.error('usage: storyblok-fetch.ts URL TOKEN LANG...');
  process.exit(2);
}

// The client reports its 429 retries with console.log; keep stdout for the result.
let rateLimitMessages = 0;
console.log = (...args: unknown[]) => {
  if (String(args[0]).startsWith('Hit rate limit')) rateLimitMessages++;
  else process.stderr.write(`${args.map(String).join(' ')}\n`);
};

interface Dimension {
  entry_value: string;
}
interface Datasource {
  slug: string;
  dimensions?: Dimension[];
}

const client = new StoryblokClient({ accessToken, endpoint: `${url}/v2` });
const started = performance.now();

const storiesPerLanguage: Record<string, number> = {};
const entries: Record<string, number> = {};
let datasources = 0;
let tags = 0;

await Promise.all([
  ...languages.map(async (lang) => {
    const stories = await client.getAll('cdn/stories', lang === 'default' ? {} : { language: lang });
    storiesPerLanguage[lang] = stories.length;
  }),
  (async () => {
    const list = (await client.getAll('cdn/datasources')) as Datasource[];
    datasources = list.length;
    await Promise.all(
      list.flatMap((ds) =>
        [undefined, ...(ds.dimensions ?? []).map((d) => d.entry_value)].map(async (dimension) => {
          const got = await client.getAll('cdn/datasource_entries', {
            datasource: ds.slug,
            ...(dimension ? { dimension } : {}),
          });
          entries[dimension ?? 'default'] = (entries[dimension ?? 'default'] ?? 0) + got.length;
        }),
      ),
    );
  })(),
  (async () => {
    const { data } = await client.get('cdn/tags');
    tags = (data as { tags: unknown[] }).tags.length;
  })(),
]);

const ms = performance.now() - started;
process.stdout.write(
  `${JSON.stringify({ ms: Math.round(ms), storiesPerLanguage, datasources, entries, tags, rateLimitMessages })}\n`,
);
