/**
 * `npm run example:dev`: the example site on Vite's dev server, with the
 * embedded content service's control plane on. Publish a change and watch
 * the open page follow it.
 */
import { startDevServer } from './dev-server.js';

try {
  const dev = await startDevServer({ logLevel: 'info' });
  console.log(`
  Site:             ${dev.url}
  Content service:  ${dev.serviceUrl}   (control plane under /__admin/)

  Change a story and publish it; open pages reload with the new content:
    curl -X PUT ${dev.serviceUrl}/__admin/stories/<id> -H 'content-type: application/json' -d '{"content":{"title":"New title"}}'
    curl -X POST ${dev.serviceUrl}/__admin/stories/<id>/publish
`);
  const stop = () => void dev.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (err) {
  console.error(`example dev server failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 1;
}
