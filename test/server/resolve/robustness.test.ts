import { describe, expect, it } from 'vitest';
import type { Story } from '../../../src/api/index.js';
import { resolveV1, resolveV2, type ResolveOptions } from '../../../src/server/resolve/index.js';
import { deepFreeze, realdata, sourceOf, story, storyLinkField } from './helpers.js';
import { itRealdata } from '../../helpers/realdata.js';

const target = story({ uuid: 'target', slug: 't', full_slug: 'x/t' });
const source = sourceOf(deepFreeze([target]));
const everything: ResolveOptions = { relations: ['blok.rel', 'page.rel'], links: 'story', assets: true };

describe('hostile content', () => {
  it('__proto__ keys are data: resolved inside, copied as own properties, prototypes untouched', () => {
    const content = JSON.parse(
      '{"component":"page","_uid":"p","__proto__":{"component":"blok","_uid":"b","rel":"target","link":{"linktype":"story","id":"target","cached_url":"old"}}}',
    );
    const input = deepFreeze(story({ uuid: 'p', content }));
    const out = resolveV1(input, everything, source).content as Record<string, any>;
    const inner = Object.getOwnPropertyDescriptor(out, '__proto__')!.value;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(inner.rel).toBe(target);
    expect(inner.link.story).toBe(target);
    expect(({} as any).rel).toBeUndefined();
    expect(resolveV2([input], everything, source).rels).toEqual([target]);
  });

  it('relation fields named like Object.prototype members resolve only when present', () => {
    const input = deepFreeze(story({ uuid: 'p', content: { component: 'page', _uid: 'p', constructor: 'target' } }));
    const out = resolveV1(input, { relations: ['page.constructor', 'page.toString'] }, source);
    expect(out.content.constructor).toBe(target);
    expect(Object.hasOwn(out.content, 'toString')).toBe(false);
  });

  it('non-string ids, odd shapes and malformed options never throw', () => {
    const content = {
      component: 'page',
      _uid: 'p',
      rel: { nested: true },
      links: [
        { linktype: 'story', fieldtype: 'multilink', id: 42 },
        { linktype: 'story', fieldtype: 'multilink', id: null },
        { linktype: 'story', fieldtype: 'multilink' },
        { linktype: 'story', fieldtype: 'asset', id: 'target' },
        { type: 'link', attrs: null },
        { type: 'link', attrs: { linktype: 'story', uuid: 7 } },
        { type: 'link', attrs: [] },
      ],
      weird: [null, 0, '', true, [[[]]], { component: 12, rel: 'target' }, { component: null }],
      assets: [
        { id: Number.NaN, filename: 'x' },
        { id: Infinity, filename: 'y' },
        { id: 1, filename: 5 },
      ],
    };
    const input = deepFreeze(story({ uuid: 'p', content }));
    const options = {
      relations: ['page.rel', 'nodot', '.x', 'x.', '', 'blok.rel'],
      links: 'url' as const,
      assets: true,
    };
    expect(resolveV2([input], options, source)).toEqual({ rels: [], links: [], assets: [] });
    expect(resolveV1(input, options, source).content).toBe(input.content);
  });

  it('content that is not an object resolves to nothing', () => {
    const input = story({ uuid: 'p' });
    const broken = { ...input, content: null } as unknown as Story;
    expect(resolveV2([broken], everything, source)).toEqual({ rels: [], links: [], assets: [] });
    expect(resolveV1(broken, everything, source).content).toBeNull();
  });

  it('an object cycle in memory does not loop', () => {
    const blok: Record<string, unknown> = { component: 'blok', _uid: 'b', rel: 'target' };
    blok.self = blok;
    blok.list = [blok, blok];
    const input = story({ uuid: 'p', content: { component: 'page', _uid: 'p', body: [blok] } });
    expect(resolveV2([input], everything, source).rels).toEqual([target]);
    const out = resolveV1(input, everything, source).content as any;
    expect(out.body[0].rel).toBe(target);
    expect(blok.rel).toBe('target');
  });
});

describe('depth', () => {
  function nested(depth: number): Story {
    let node: Record<string, unknown> = {
      component: 'blok',
      _uid: 'leaf',
      rel: 'target',
      link: storyLinkField('target'),
    };
    for (let i = 0; i < depth; i++) node = { component: 'wrap', _uid: `w${i}`, body: [node] };
    return deepFreeze(story({ uuid: 'deep', content: { component: 'page', _uid: 'p', body: [node] } }));
  }

  it('content 20,000 levels deep resolves without exhausting the stack', () => {
    const input = nested(20_000);
    expect(resolveV2([input], everything, source).rels).toEqual([target]);
    let node = resolveV1(input, everything, source).content as any;
    let original = input.content as any;
    let copied = 0;
    while (node.component !== 'blok') {
      if (node !== original && node.body !== original.body) copied++;
      node = node.body[0];
      original = original.body[0];
    }
    expect(copied).toBe(20_001);
    expect(node.rel).toBe(target);
    expect(node.link.cached_url).toBe('x/t');
    expect(original.rel).toBe('target');
  });
});

describe('inputs are never written to', () => {
  itRealdata('real stories, resolved every way, stay byte-identical (and frozen)', () => {
    const recorded = realdata<{ stories: Story[] }>('storyblok-php-client/v2-stories.json');
    const before = JSON.stringify(recorded);
    const stories = deepFreeze(recorded.stories);
    const everyUuid = sourceOf(stories);
    const relations = ['article.author', 'popular-articles.articles', 'all-articles.articles', 'page.body'];
    for (const links of ['story', 'url', 'link'] as const) {
      resolveV2(stories, { relations, links, assets: true }, everyUuid);
      for (const s of stories) resolveV1(s, { relations, links }, everyUuid);
    }
    expect(JSON.stringify(recorded)).toBe(before);
  });
});
