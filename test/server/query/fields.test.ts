import { describe, expect, it } from 'vitest';
import { excludeFields } from '../../../src/server/query/index.js';
import { makeStory } from './fixtures.js';

describe('excludeFields', () => {
  const story = makeStory({
    id: 7,
    content: { title: 'T', body: [{ component: 'x', _uid: 'y', title: 'inner' }], seo: { title: 's' } },
  });

  it('drops top-level content fields', () => {
    const out = excludeFields(story, ['body', 'seo']);
    expect(out.content).toEqual({ component: 'page', _uid: 'uid-7', title: 'T' });
    expect(out.id).toBe(7);
  });
  it('never drops component or _uid', () => {
    expect(excludeFields(story, ['component', '_uid', 'title']).content).toEqual({
      component: 'page',
      _uid: 'uid-7',
      body: story.content.body,
      seo: story.content.seo,
    });
  });
  it('does not reach into nested fields', () => {
    expect(excludeFields(story, ['seo.title']).content.seo).toEqual({ title: 's' });
  });
  it('returns a copy and leaves the input alone', () => {
    const before = structuredClone(story);
    const out = excludeFields(story, ['title']);
    expect(out).not.toBe(story);
    expect(out.content).not.toBe(story.content);
    expect(story).toEqual(before);
    expect(excludeFields(story, [])).toEqual(story);
  });
  it('keeps an own __proto__ key as data and drops it on request', () => {
    const hostile = makeStory({
      content: JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>,
    });
    const kept = excludeFields(hostile, ['a']);
    expect(Object.hasOwn(kept.content, '__proto__')).toBe(true);
    expect((kept.content as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.hasOwn(excludeFields(hostile, ['__proto__']).content, '__proto__')).toBe(false);
  });
});
