/**
 * Literal unions only for values that recur across stories: a value one story holds (an author's
 * name, however often that story repeats it, in however many languages) makes the field `string`;
 * an option whose few values each occur in several stories stays a union of them; a component
 * schema decides over both. Removing a story's languages undoes exactly what adding them did.
 */
import { describe, expect, it } from 'vitest';
import type { Story } from '../../../src/api/index.js';
import { TypeInferrer, printType } from '../../../src/compile/types/index.js';
import type { InferOptions } from '../../../src/compile/types/index.js';
import { story } from './helpers.js';

function fieldType(t: TypeInferrer, component: string, key: string): string {
  const f = t
    .model()
    .components.find((c) => c.name === component)!
    .fields.find((x) => x.key === key)!;
  return printType(f.type);
}

/** A story in the default language and in `langs`, the translations sharing its content objects. */
function inLanguages(content: Record<string, unknown>, langs: readonly string[]): Story[] {
  const base = story(content);
  return [base, ...langs.map((lang) => ({ ...base, lang }))];
}

function observe(stories: Story[][], options?: InferOptions): TypeInferrer {
  const t = new TypeInferrer(options);
  for (const variants of stories) t.addVariants(variants);
  return t;
}

describe('literal unions', () => {
  it('a value held by one story is a string, however often it repeats there and in however many languages', () => {
    const quote = (by: string) => ({ _uid: `q-${by}`, component: 'quote', by });
    const t = observe([
      inLanguages({ component: 'post', author: 'Ada Lovelace', quotes: [quote('Ada'), quote('Ada'), quote('Ada')] }, [
        'de',
        'fr',
        'it',
      ]),
      inLanguages({ component: 'post', author: 'Alan Turing', quotes: [quote('Alan'), quote('Alan')] }, ['de']),
    ]);
    expect(fieldType(t, 'post', 'author')).toBe('string');
    expect(fieldType(t, 'quote', 'by')).toBe('string');
  });

  it('an option whose values each occur in several stories stays a union; one value in one story makes it a string', () => {
    const posts = (colors: string[]) =>
      colors.map((color) => inLanguages({ component: 'post', color, size: color === 'red' ? 's' : 'l' }, ['de']));
    const recurring = observe(posts(['red', 'blue', 'red', 'blue', 'green', 'green']));
    expect(fieldType(recurring, 'post', 'color')).toBe('"blue" | "green" | "red"');
    expect(fieldType(recurring, 'post', 'size')).toBe('"l" | "s"');
    const once = observe(posts(['red', 'blue', 'red', 'blue', 'green']));
    expect(fieldType(once, 'post', 'color')).toBe('string');
  });

  it('a component schema decides: its options are the union even for values seen once, a text field is a string', () => {
    const schema = {
      components: [
        {
          name: 'post',
          is_root: true,
          schema: { color: { type: 'option', options: [{ value: 'red' }, { value: 'blue' }] }, tone: { type: 'text' } },
        },
      ],
    };
    const t = observe(
      [
        inLanguages({ component: 'post', color: 'red', tone: 'calm' }, []),
        inLanguages({ component: 'post', color: 'red', tone: 'calm' }, []),
      ],
      { schema },
    );
    expect(fieldType(t, 'post', 'color')).toBe('"blue" | "red"');
    expect(fieldType(t, 'post', 'tone')).toBe('string');
  });

  it('removeVariants undoes addVariants exactly, so an incremental compile types as a full one', () => {
    const a = inLanguages({ component: 'post', color: 'red', tags: ['x', 'x'] }, ['de', 'fr']);
    const b = inLanguages({ component: 'post', color: 'red', tags: ['x'] }, ['de']);
    const c = inLanguages({ component: 'post', color: 'blue', tags: ['y'] }, []);
    const t = observe([a, b, c]);
    const only = observe([a, c]);
    t.removeVariants(b);
    expect(t.state()).toEqual(only.state());
    expect(fieldType(t, 'post', 'color')).toBe('string');
    t.removeVariants(a);
    t.removeVariants(c);
    expect(t.state()).toEqual(new TypeInferrer().state());
  });
});
