import type { View } from '../api/index.js';
/**
 * Slices of the text of a story record as sync writes it: what a compile
 * copies into the modules it writes instead of serializing it again.
 */

/** Where a version is in a record as sync writes it (see versionStoryText). */
export interface VersionLayout {
  /** The line of its `languages` key, or -1 when it has none. */
  languages: number;
  /** The line of its `story` key, and the story's text. */
  storyAt: number;
  story: string;
}

/**
 * The text of a version's story in the text of a record as sync writes it
 * (canonical JSON, indented by two spaces: each version a key of the record,
 * the story the last key of its version), as it is there, indented; undefined
 * when the text is not laid out so. No string of JSON holds a line break, so
 * lines at a given indent are the keys and closing brackets at that depth.
 */
export function versionStoryText(record: string, version: View): string | undefined {
  return versionLayout(record, version)?.story;
}

export function versionLayout(record: string, version: View): VersionLayout | undefined {
  const head = `\n  "${version}": {`;
  const open = record.indexOf(`${head}\n`);
  if (open < 0) return undefined;
  const key = '\n    "story": ';
  const at = record.indexOf(key, open);
  const start = at + key.length;
  // The story is an object of this version (which has not closed before it), and the version's last key.
  if (at < 0 || !record.startsWith('{\n', start) || record.lastIndexOf('\n  }', at) > open) return undefined;
  const end = record.indexOf('\n    }', start) + '\n    }'.length;
  if (end < start || !record.startsWith('\n  }', end)) return undefined;
  // Its languages, if any, are its first key (nothing sorts before them).
  const languages = record.startsWith('\n    "languages": {\n', open + head.length) ? open + head.length : -1;
  return { languages, storyAt: at, story: record.slice(start, end) };
}

/**
 * The texts of what a language's overlay sets in the content, in a record as
 * sync writes it (see versionStoryText): each value of `content` in its order,
 * or with `replace` the whole content; undefined when the text is not laid
 * out so.
 */
export function overlayContentTexts(
  record: string,
  version: View,
  lang: string,
  content: Record<string, unknown> | undefined,
  replace: boolean,
  layout = versionLayout(record, version),
): string[] | undefined {
  if (!content || !layout || layout.languages < 0) return undefined;
  const head = `\n      ${JSON.stringify(lang)}: {`;
  const at = record.indexOf(`${head}\n`, layout.languages);
  if (at < 0 || at > layout.storyAt) return undefined;
  // The content is the overlay's first key, or its second after `$replace_content`.
  let key = at + head.length;
  if (record.startsWith('\n        "$replace_content": ', key)) key = record.indexOf('\n', key + 1);
  const contentKey = '\n        "content": ';
  if (!record.startsWith(`${contentKey}{\n`, key)) return undefined;
  const start = key + contentKey.length;
  const keys = Object.keys(content);
  const texts: string[] = [];
  // Each key on a line of its own at ten spaces, its value to the next such line (less its comma),
  // the last one to the content's closing line.
  let from = start + 1;
  for (let i = 0; i < keys.length; i++) {
    const line = `\n          ${JSON.stringify(keys[i])}: `;
    if (!record.startsWith(line, from)) return undefined;
    const value = from + line.length;
    if (i < keys.length - 1) {
      const next = record.indexOf('\n          "', value);
      if (next < 0 || record.charCodeAt(next - 1) !== 44) return undefined;
      texts.push(record.slice(value, next - 1));
      from = next;
    } else {
      const close = record.indexOf('\n        }', value);
      if (close < 0 || record.lastIndexOf('\n          "', close) > value) return undefined;
      texts.push(record.slice(value, close));
      from = close;
    }
  }
  if (keys.length === 0 || !record.startsWith('\n        }', from)) return undefined;
  return replace ? [record.slice(start, from + '\n        }'.length)] : texts;
}
