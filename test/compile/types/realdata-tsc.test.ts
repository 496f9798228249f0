import { expect, it } from 'vitest';
import { TypeInferrer } from '../../../src/compile/types/index.js';
import type { Story } from '../../../src/api/index.js';
import { readReal, runTsc, story, storiesOf } from './helpers.js';
import { describeRealdata } from '../../helpers/realdata.js';

const FILES = [
  'storyblok-php-client/v2-stories.json',
  'storyblok-php-client/v2-stories-relations.json',
  'laravel-storyblok/all-fields.json',
  'laravel-storyblok/ep16.json',
  'laravel-storyblok/folder.json',
  'laravel-storyblok/multi-option-self.json',
  'laravel-storyblok/richtext.json',
  'storyblok-astro/playground-content-layer.stories.decoded.json',
  'nackademin-WEBB24-cms-docs/story-home-draft.json',
  'nackademin-WEBB24-cms-docs/story-translated-slugs.json',
  'storyblok-ruby/cdn-stories-draft.json',
  'storyblok-ruby/cdn-story-published.json',
];

/** The three laravel stories that relate to each other form one space. */
const RELATION_SET = [
  'laravel-storyblok/relation.json',
  'laravel-storyblok/aa2cd950-da3a-4d7e-9c51-5eaaf5e0af46.json',
  'laravel-storyblok/cb1bb01a-e414-49ed-85d0-03f63f35171f.json',
];

const REQUIRED = [
  'id',
  'uuid',
  'name',
  'slug',
  'full_slug',
  'created_at',
  'published_at',
  'first_published_at',
  'lang',
  'content',
  'position',
  'is_startpage',
  'parent_id',
  'group_id',
  'alternates',
  'tag_list',
];

const TRIMMED = 'type Trimmed<S, K extends PropertyKey> = { [P in keyof S as P extends K ? never : P]: S[P] };\n';

interface Case {
  label: string;
  stories: Story[];
}

function cases(): Case[] {
  const out: Case[] = FILES.map((f) => ({ label: f, stories: storiesOf(readReal(f)) }));
  out.push({ label: 'laravel relation set', stories: RELATION_SET.flatMap((f) => storiesOf(readReal(f))) });
  const doc = readReal('johannes-lindgren-storyblok/richtext-one-of-each.json');
  out.push({ label: 'johannes-lindgren richtext', stories: [story({ component: 'rich_page', body: doc })] });
  return out;
}

/** A check module: every story of the case assigned, as a literal, to its generated story type. */
function checkModule(stories: Story[], inferrer: TypeInferrer): string {
  const model = inferrer.model();
  const byName = new Map(model.components.map((c) => [c.name, c] as const));
  const lines = [`import type * as T from './types.js';`, TRIMMED];
  stories.forEach((s, i) => {
    const c = byName.get(s.content.component)!;
    const missing = REQUIRED.filter((k) => !(k in s));
    const type =
      missing.length === 0
        ? `T.${c.storyName!}`
        : `Trimmed<T.Story<T.${c.typeName}>, ${missing.map((k) => JSON.stringify(k)).join(' | ')}>`;
    lines.push(`export const s${i}: ${type} = ${JSON.stringify(s, null, 1)};`);
    if (missing.length === 0) lines.push(`export const a${i}: T.AnyStory = s${i};`);
    lines.push(`export const c${i}: T.ContentTypes[${JSON.stringify(c.name)}] = s${i}.content;`);
  });
  return lines.join('\n');
}

describeRealdata('generated types accept the real content (tsc --strict)', () => {
  it('every realdata story is assignable, the emitted modules typecheck, wrong literals fail', async () => {
    const files: Record<string, string> = {};
    const all = cases();
    all.forEach((c, i) => {
      const inferrer = new TypeInferrer();
      for (const s of c.stories) inferrer.add(s);
      files[`f${i}/types.ts`] = inferrer.emit({ header: c.label });
      files[`f${i}/check.ts`] = checkModule(c.stories, inferrer);
    });

    // Negative cases: content that differs from what was observed must not compile.
    const allFields = storiesOf(readReal('laravel-storyblok/all-fields.json'))[0]!;
    const neg = new TypeInferrer();
    neg.add(allFields);
    files['neg/types.ts'] = neg.emit();
    const wrong = (mutate: (c: any) => void): string => {
      const copy = structuredClone(allFields) as any;
      mutate(copy.content);
      return JSON.stringify(copy);
    };
    const negatives = {
      numberAsJsonNumber: wrong((c) => {
        c.number = 1234;
      }),
      unknownComponentInBloks: wrong((c) => {
        c.blocks.push({ _uid: 'x', component: 'nope' });
      }),
      wrongLinktype: wrong((c) => {
        c.link_url.linktype = 'phone';
      }),
      missingRequiredField: wrong((c) => {
        delete c.text;
      }),
      nullWhereNeverNull: wrong((c) => {
        c.hero = null;
      }),
      richTextUnknownNode: wrong((c) => {
        c.richtext.content.push({ type: 'marquee' });
      }),
      tableWithoutBody: wrong((c) => {
        delete c.table.tbody;
      }),
      extraFieldOnComponent: wrong((c) => {
        c.surprise = 'x';
      }),
    };
    for (const [name, literal] of Object.entries(negatives)) {
      files[`neg/${name}.ts`] =
        `import type { AllFieldsStory } from './types.js';\nexport const s: AllFieldsStory = ${literal};\n`;
    }

    const result = await runTsc(files);
    const positives = [...result.errors.entries()].filter(
      ([file]) => !file.startsWith('neg/') || file === 'neg/types.ts',
    );
    expect(
      positives
        .map(([, e]) => e.join('\n'))
        .join('\n')
        .slice(0, 4000),
    ).toBe('');
    for (const name of Object.keys(negatives)) {
      expect(result.errors.get(`neg/${name}.ts`)?.length ?? 0, name).toBeGreaterThan(0);
    }
  }, 120_000);
});
