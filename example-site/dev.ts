/**
 * `npm run example:dev`: the example site on Vite's dev server, with the
 * embedded content service's control plane on. Publish a change, or save a
 * story file of the space directory, and watch the open page follow it.
 */
import { startDevServer } from './dev-server.js';

try {
  const dev = await startDevServer({ logLevel: 'info' });
  const [publicToken, previewToken] = dev.tokens;
  console.log(`
  Site:             ${dev.url}
  Content service:  ${dev.serviceUrl}   (control plane under /__admin/)
  Tokens:           public ${publicToken}, preview ${previewToken} (this process only)

  List the stories (id, name, full slug), then change one and publish it; open pages reload:
    curl ${dev.serviceUrl}/__admin/stories
    curl -X PUT ${dev.serviceUrl}/__admin/stories/<id> -H 'content-type: application/json' -d '{"content":{"title":"New title"}}'
    curl -X POST ${dev.serviceUrl}/__admin/stories/<id>/publish
  Or edit a story file of the space directory (example-site/.content/space/stories/<id>.json) and save it.
  Read it through the API as a client would:
    curl -L "${dev.serviceUrl}/v2/cdn/stories?token=${publicToken}&per_page=5"
`);
  const stop = () => void dev.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (err) {
  console.error(`example dev server failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 1;
}
