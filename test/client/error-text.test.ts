/**
 * What an error answer says, read from a real HTTP answer on loopback: the JSON `error`, an XML
 * error's text, nothing of a web page, and what had arrived of a body that stalls.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorText } from '../../src/client/index.js';

type Answer = (res: http.ServerResponse) => void;
const answers = new Map<string, Answer>();
let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => answers.get(req.url ?? '')?.(res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function said(answer: Answer, max?: number): Promise<string> {
  const path = `/${answers.size}`;
  answers.set(path, answer);
  return errorText(await fetch(`${base}${path}`), max, 200);
}

const send = (status: number, type: string, body: string) => (res: http.ServerResponse) => {
  res.writeHead(status, { 'content-type': type });
  res.end(body);
};

describe('errorText', () => {
  it("gives a JSON error's message, an XML error's text, and nothing of a web page", async () => {
    expect(await said(send(501, 'application/json', '{"error":"needs sharp:\\n npm i -D sharp"}'))).toBe(
      'needs sharp: npm i -D sharp',
    );
    expect(await said(send(400, 'application/json', '{"message":"other"}'))).toBe('{"message":"other"}');
    const xml = '<?xml version="1.0"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>';
    expect(await said(send(403, 'application/xml', xml))).toBe(xml);
    expect(await said(send(502, 'text/html', '<!DOCTYPE html><html><p>Bad gateway</p></html>'))).toBe('');
    expect(await said(send(500, 'text/plain', ''))).toBe('');
  });

  it('gives nothing of a web page that starts otherwise, drops bidi controls and keeps joiners', async () => {
    // Typed as a page, starting with a comment (no <html> first): told by its type.
    expect(await said(send(502, 'text/html; charset=utf-8', '<!-- proxy --><head><title>502</title></head>'))).toBe('');
    // Untyped, after a byte-order mark.
    expect(await said(send(502, 'application/octet-stream', '\uFEFF<!doctype html><p>Bad gateway</p>'))).toBe('');
    // A right-to-left override would show the rest of the line reversed in a terminal.
    expect(await said(send(500, 'text/plain', 'denied \u202Egnp.exe'))).toBe('denied gnp.exe');
    expect(await said(send(500, 'text/plain', 'a\u2067b\u2069\u200Fc\uFEFF'))).toBe('abc');
    // Joiners are part of what the text says: a family emoji and a Persian word keep theirs.
    const joined =
      'no space for \u{1F468}\u200D\u{1F469}\u200D\u{1F467} or \u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645';
    expect(await said(send(500, 'text/plain', joined))).toBe(joined);
  });

  it('gives what had arrived of a body that stalls, without waiting for the rest', async () => {
    const stalled = said((res) => {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.write('busy:\x1b[31m try later\n');
    });
    expect(await stalled).toBe('busy: [31m try later');
  });

  it('cuts a long text between characters, and says it did', async () => {
    const text = await said(send(500, 'text/plain', `${'a'.repeat(9)}😀${'b'.repeat(100)}`), 10);
    expect(text).toBe(`${'a'.repeat(9)}…`);
    expect(await said(send(500, 'text/plain', 'short'), 10)).toBe('short');
    // Nor within what shows as one: an emoji joined of three, a letter with its accent.
    const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}';
    expect(await said(send(500, 'text/plain', `${'a'.repeat(7)}${family}b`), 10)).toBe(`${'a'.repeat(7)}…`);
    expect(await said(send(500, 'text/plain', `${'a'.repeat(9)}e\u0301b`), 10)).toBe(`${'a'.repeat(9)}…`);
  });
});
