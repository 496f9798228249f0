import { expect, it } from 'vitest';
import { TypeInferrer, printType } from '../../../src/compile/types/index.js';
import type { TypeModel } from '../../../src/compile/types/index.js';
import { readReal, runTsc, story } from './helpers.js';
import { describeRealdata } from '../../helpers/realdata.js';

function field(model: TypeModel, component: string, key: string): string {
  const f = model.components.find((x) => x.name === component)?.fields.find((x) => x.key === key);
  if (!f) throw new Error(`no field ${component}.${key}`);
  return `${f.optional ? '?' : ''}${printType(f.type)}`;
}

describeRealdata('schema merge (storyblok-demo-default/components.237487.json)', () => {
  const schema = readReal('storyblok-demo-default/components.237487.json');
  const observed = [
    story({
      component: 'default-page',
      body: [
        { _uid: 'b1', component: 'button', label: 'Go', style: 'ghost' },
        { _uid: 'b2', component: 'button', label: 'Go', style: 'ghost' },
      ],
    }),
    story({ component: 'article-page', headline: 'Hello', text: { type: 'doc', content: [] }, categories: [] }),
  ];
  const t = new TypeInferrer({ schema, datasources: [{ slug: 'overlays', names: ['none', 'dark', 'light'] }] });
  for (const s of observed) t.add(s);
  const m = t.model();

  it('declares every schema component, content types by is_root', () => {
    expect(m.components).toHaveLength(31);
    const page = m.components.find((c) => c.name === 'article-page')!;
    expect([page.typeName, page.storyName, page.contentType]).toEqual(['ArticlePageContent', 'ArticlePageStory', true]);
    expect(m.components.find((c) => c.name === 'button')!.typeName).toBe('ButtonBlok');
    expect(m.components.find((c) => c.name === 'banner')!.observed).toBe(0);
  });

  it('types never-filled fields from the schema, optional', () => {
    expect(field(m, 'article-page', 'image')).toBe('?Asset');
    expect(field(m, 'article-page', 'teaser')).toBe('?string');
    expect(field(m, 'article-page', 'author')).toBe('?Relation<AuthorStory> | ""');
    expect(field(m, 'price-card', 'price')).toBe('?NumericString');
    expect(field(m, 'banner', 'full_width')).toBe('?boolean');
    expect(field(m, 'banner', 'buttons')).toBe('?ButtonBlok[]');
    expect(field(m, 'banner', 'overlay')).toBe('?"dark" | "light" | "none" | ""');
    expect(field(m, 'banner', 'background_color')).toBe('?PluginNativeColorPicker');
    expect(field(m, 'button', 'link')).toBe('?Multilink');
    expect(field(m, 'button', 'border_radius')).toBe('?"default" | "small" | ""');
    expect(m.plugins.find((p) => p.name === 'native-color-picker')!.open).toBe(true);
  });

  it('observed data wins; the schema refines options and fills always-empty fields', () => {
    expect(field(m, 'button', 'style')).toBe('"default" | "ghost" | "semi"');
    expect(field(m, 'article-page', 'text')).toBe('RichText');
    expect(field(m, 'article-page', 'categories')).toBe('Relation<CategoryStory>[]');
    const odd = new TypeInferrer({ schema });
    odd.add(story({ component: 'default-page', body: [{ _uid: 'b', component: 'button', style: 'neon' }] }));
    expect(field(odd.model(), 'button', 'style')).toBe('string');
  });

  it('the merged module typechecks under --strict and accepts a schema-shaped literal', async () => {
    const result = await runTsc({
      'types.ts': t.emit(),
      'check.ts': `import type * as T from './types.js';
export const b: T.BannerContent = { component: 'banner', _uid: 'u', buttons: [{ component: 'button', _uid: 'v', label: 'Go', style: 'ghost' }], overlay: 'dark', full_width: true };
export const a: T.ArticlePageContent = { component: 'article-page', _uid: 'u', headline: 'x', text: { type: 'doc', content: [] }, categories: [], author: 'b8f3a1de-0000-4000-8000-000000000000' };
`,
      'bad.ts': `import type * as T from './types.js';
export const b: T.BannerContent = { component: 'banner', _uid: 'u', overlay: 'purple' };
`,
    });
    expect(result.errors.get('check.ts') ?? []).toEqual([]);
    expect([...result.errors.keys()]).toEqual(['bad.ts']);
  }, 60_000);
});
