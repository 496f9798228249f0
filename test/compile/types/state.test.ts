import { describe, expect, it } from 'vitest';
import { TypeInferrer } from '../../../src/compile/types/index.js';
import type { Story } from '../../../src/api/index.js';
import { readReal, story, storiesOf } from './helpers.js';
import { itRealdata } from '../../helpers/realdata.js';

const space = (): Story[] => [
  ...storiesOf(readReal('storyblok-php-client/v2-stories.json')),
  ...storiesOf(readReal('laravel-storyblok/all-fields.json')),
  ...storiesOf(readReal('laravel-storyblok/folder.json')),
  ...storiesOf(readReal('storyblok-astro/playground-content-layer.stories.decoded.json')),
];

function emitFrom(stories: Story[]): string {
  const t = new TypeInferrer();
  for (const s of stories) t.add(s);
  return t.emit();
}

/** A state with each held value's count set to 1 (the counts of stories, or of variants, aside). */
function valuesOnce(state: unknown): unknown {
  if (Array.isArray(state)) return state.map(valuesOnce);
  if (state === null || typeof state !== 'object') return state;
  return Object.fromEntries(
    Object.entries(state).map(([k, v]) => [
      k,
      k === 'vals' ? Object.fromEntries(Object.keys(v as object).map((x) => [x, 1])) : valuesOnce(v),
    ]),
  );
}

/** Every held value's count, anywhere in a state. */
function valueCounts(state: unknown): number[] {
  if (state === null || typeof state !== 'object') return [];
  return Object.entries(state).flatMap(([k, v]) =>
    k === 'vals' ? Object.values(v as Record<string, number>) : valueCounts(v),
  );
}

describe('determinism and incremental state', () => {
  itRealdata('two runs, and any order of stories, give identical text', () => {
    const stories = space();
    const a = emitFrom(stories);
    expect(emitFrom(stories)).toBe(a);
    expect(emitFrom([...stories].reverse())).toBe(a);
  });

  itRealdata('remove() undoes add()', () => {
    const stories = space();
    const base = new TypeInferrer();
    for (const s of stories.slice(1)) base.add(s);
    const t = new TypeInferrer();
    for (const s of stories) t.add(s);
    t.remove(stories[0]!);
    expect(t.emit()).toBe(base.emit());
    expect(t.state()).toEqual(base.state());
    for (const s of stories.slice(1)) t.remove(s);
    expect(t.state()).toEqual(new TypeInferrer().state());
  });

  itRealdata('state() round-trips through JSON and resumes', () => {
    const stories = space();
    const t = new TypeInferrer();
    for (const s of stories.slice(0, 10)) t.add(s);
    const json = JSON.stringify(t.state());
    expect(JSON.stringify(t.state())).toBe(json);
    const resumed = TypeInferrer.fromState(JSON.parse(json));
    for (const s of stories.slice(10)) resumed.add(s);
    expect(resumed.emit()).toBe(emitFrom(stories));
    expect(() => TypeInferrer.fromState(JSON.parse(json), { maxLiterals: 3 })).toThrow(/different/);
    expect(() => TypeInferrer.fromState({ nope: true })).toThrow();
  });

  it('a content key named __proto__ is an ordinary field', () => {
    const t = new TypeInferrer();
    t.add(story(JSON.parse('{"component":"p","__proto__":"x"}')));
    const resumed = TypeInferrer.fromState(JSON.parse(JSON.stringify(t.state())));
    expect(resumed.emit()).toContain('"__proto__": string;');
  });

  it('resuming takes the story counts over, keys named __proto__ included, and refuses counts that are not dictionaries', () => {
    const options = { relations: ['article.author'] };
    const author = story({ component: 'author', name: 'A' });
    // A story whose uuid and component are both `__proto__`, in a relation field, and one pointing at the author.
    const odd = story({ component: '__proto__' }, { uuid: '__proto__' });
    const article = story({ component: 'article', author: author.uuid });
    const pointing = story({ component: 'article', author: '__proto__' });
    const all = [author, odd, article, pointing];
    const full = new TypeInferrer(options);
    for (const s of all) full.add(s);
    const json = JSON.stringify(full.state());

    const parsed = JSON.parse(json);
    const resumed = TypeInferrer.fromState(parsed, options);
    expect(resumed.emit()).toBe(full.emit());
    expect(Object.getPrototypeOf(parsed.stories)).toBe(null);
    // What it took over is counted on as it would have been: removing stories gives the state of a
    // fresh inferrer with the rest, and nothing reaches Object.prototype.
    resumed.remove(odd);
    resumed.remove(article);
    const rest = new TypeInferrer(options);
    for (const s of [author, pointing]) rest.add(s);
    expect(resumed.state()).toEqual(rest.state());
    expect(resumed.emit()).toBe(rest.emit());
    // Keys named __proto__ added after resuming: a new uuid, and a new component for a uuid it held.
    const before = TypeInferrer.fromState(JSON.parse(JSON.stringify(rest.state())), options);
    const renamed = story({ component: '__proto__' }, { uuid: author.uuid });
    before.add(odd);
    before.add(renamed);
    const fresh = new TypeInferrer(options);
    for (const s of [author, pointing, odd, renamed]) fresh.add(s);
    expect(before.state()).toEqual(fresh.state());
    expect(before.emit()).toBe(fresh.emit());
    expect(Object.keys(Object.prototype)).toEqual([]);
    expect(({} as Record<string, unknown>).author).toBeUndefined();

    // A frozen state is copied, not taken over.
    const frozen = JSON.parse(json);
    for (const byComp of Object.values(frozen.stories)) Object.freeze(byComp);
    Object.freeze(frozen.stories);
    expect(TypeInferrer.fromState(frozen, options).emit()).toBe(full.emit());
    expect(Object.getPrototypeOf(frozen.stories)).toBe(Object.prototype);

    for (const stories of [[], { [author.uuid]: 1 }, { [author.uuid]: [] }, undefined]) {
      expect(() => TypeInferrer.fromState({ ...JSON.parse(json), stories }, options)).toThrow(
        /not a type inference state/,
      );
    }
  });

  it('literal tracking is bounded and exact again after removals', () => {
    const t = new TypeInferrer({ maxLiterals: 2 });
    const mk = (v: string): Story => story({ component: 'p', o: v });
    const a = [mk('a'), mk('a'), mk('b'), mk('b')];
    const c = mk('c');
    for (const s of a) t.add(s);
    t.add(c);
    expect(t.emit()).toContain('o: string;');
    t.remove(c);
    expect(t.emit()).toContain('o: "a" | "b";');
  });

  itRealdata('merging the states of disjoint halves gives what observing all of them gives', () => {
    const stories = space();
    for (const cut of [1, Math.floor(stories.length / 3), stories.length - 1]) {
      const left = new TypeInferrer();
      const right = new TypeInferrer();
      stories.forEach((s, i) => {
        (i % 2 && i > cut ? right : left).add(s);
      });
      left.merge(JSON.parse(JSON.stringify(right.state())));
      expect(left.emit()).toBe(emitFrom(stories));
    }
    const all = new TypeInferrer();
    for (const s of stories) all.add(s);
    const first = new TypeInferrer();
    const second = new TypeInferrer();
    stories.forEach((s, i) => {
      (i < stories.length / 2 ? first : second).add(s);
    });
    first.merge(second.state());
    expect(first.emit()).toBe(all.emit());
    expect(() => first.merge(new TypeInferrer({ maxLiterals: 3 }).state())).toThrow(/different/);
  });

  itRealdata('observations() (unsorted, as a worker thread sends them) merge as state() does', () => {
    const stories = space();
    const withState = new TypeInferrer();
    const withObservations = new TypeInferrer();
    const other = new TypeInferrer();
    stories.forEach((s, i) => {
      (i % 3 ? other : withState).add(s);
    });
    stories.forEach((s, i) => {
      i % 3 ? undefined : withObservations.add(s);
    });
    // Keys in the order they were first seen, not sorted: the text differs, the merge does not.
    expect(JSON.stringify(other.observations())).not.toBe(JSON.stringify(other.state()));
    withState.merge(JSON.parse(JSON.stringify(other.state())));
    withObservations.merge(JSON.parse(JSON.stringify(other.observations())));
    expect(withObservations.state()).toEqual(withState.state());
    expect(withObservations.emit()).toBe(emitFrom(stories));
  });

  it('merged literal counts overflow the cap as observing one by one does, and can be removed', () => {
    const mk = (v: string): Story => story({ component: 'p', o: v });
    const one = new TypeInferrer({ maxLiterals: 2 });
    const two = new TypeInferrer({ maxLiterals: 2 });
    const c = mk('c');
    for (const s of [mk('a'), mk('a')]) one.add(s);
    for (const s of [mk('b'), mk('b'), c]) two.add(s);
    one.merge(two.state());
    expect(one.emit()).toContain('o: string;');
    one.remove(c);
    expect(one.emit()).toContain('o: "a" | "b";');
    const ab = new TypeInferrer({ maxLiterals: 2 });
    for (const s of [mk('a'), mk('a'), mk('b'), mk('b')]) ab.add(s);
    const counts = (t: TypeInferrer) => (t.state() as { comps: unknown }).comps;
    expect(counts(one)).toEqual(counts(ab));
  });

  it('says when removals leave a literal type in doubt, and observing again decides it', () => {
    const cap = 2;
    // Three values past a cap of two, each repeated: a string. Which two are held depends on the order.
    const mk = (v: string, i: number): Story => ({
      ...story({ component: 'p', o: v, title: `Title ${i}` }),
      uuid: `u${i}`,
    });
    const all = ['a', 'a', 'b', 'b', 'c', 'c'].map(mk);
    const counts = new TypeInferrer({ maxLiterals: cap });
    for (const s of all) counts.add(s);
    expect(counts.model().undecided).toBe(false);
    expect(counts.emit()).toContain('o: string;');
    // The stories of a held value leave: two values are left, and the counts cannot name the one past the cap.
    for (const s of all.slice(0, 2)) counts.remove(s);
    expect(counts.model().undecided).toBe(true);
    const again = new TypeInferrer({ maxLiterals: cap });
    for (const s of all.slice(2)) again.add(s);
    expect(again.model().undecided).toBe(false);
    expect(again.emit()).toContain('o: "b" | "c";');
    // Titles are past the cap too, but each is seen once: never literals, so never in doubt.
    const titles = new TypeInferrer({ maxLiterals: cap });
    for (const s of all) titles.add(mk('a', Number(s.uuid.slice(1))));
    titles.remove(mk('a', 0));
    expect(titles.model().undecided).toBe(false);
  });

  it('addVariants() records what add() of each variant records, but a string value once for the story; removeVariants() undoes it', () => {
    const base = story({
      component: 'p',
      title: 'Hello',
      tags: ['a', 'b'],
      body: [{ component: 'q', _uid: 'x', n: 1 }],
      hero: { filename: 'a.jpg', id: 1 },
    });
    const content = base.content as Record<string, unknown>;
    // Languages share untranslated fields (the same objects) and translate others.
    const de = { ...base, lang: 'de', content: { ...content, title: 'Hallo' } };
    const fr = { ...base, lang: 'fr', content: { ...content, title: 'Bonjour', extra: '' } };
    const odd = { ...base, lang: 'it', content: { component: 'other', _uid: 'y' } };
    // The first variant's value again after another one, and a key the first variant lacks held by two others.
    const nl = { ...base, lang: 'nl', content: { ...content, extra: '' } };
    for (const variants of [
      [base, de, fr],
      [base, de, fr, odd],
      [base, de, fr, nl],
      [de, base, nl, fr],
      [base],
    ] as Story[][]) {
      const one = new TypeInferrer();
      for (const v of variants) one.add(v);
      const grouped = new TypeInferrer();
      grouped.addVariants(variants);
      expect(valuesOnce(grouped.state())).toEqual(valuesOnce(one.state()));
      // The variants of one story (alike: one uuid, one content type) hold each value for one story.
      const alike = variants.every((v) => v.content.component === variants[0]!.content.component);
      if (alike) expect(valueCounts(grouped.state()).every((n) => n === 1)).toBe(true);
      grouped.removeVariants(variants);
      expect(grouped.state()).toEqual(new TypeInferrer().state());
    }
  });
});
