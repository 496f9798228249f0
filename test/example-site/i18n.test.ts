import { describe, expect, it } from 'vitest';
import { languageName, t } from '../../example-site/src/i18n.js';

describe("the example site's words in a language of the space", () => {
  it('are its own for the languages it knows, else the default ones', () => {
    expect([t('tags', 'default'), t('tags', 'de'), t('tags', 'pt-br')]).toEqual(['Tags', 'Schlagwörter', 'Tags']);
    expect([languageName('default'), languageName('fr'), languageName('pt-br')]).toEqual([
      'English',
      'Français',
      'pt-br',
    ]);
  });

  it('are never what every object has, for a language named like an object key', () => {
    // A space language `constructor` or `toString` read Object or a function: the page showed its source.
    for (const lang of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(t('tags', lang)).toBe('Tags');
      expect(t('home', lang)).toBe('Home');
      expect(languageName(lang)).toBe(lang);
    }
  });
});
