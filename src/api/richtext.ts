/**
 * The rich-text vocabulary the API delivers (a ProseMirror document): the node and mark types a
 * `richtext` field may hold. Type inference knows a rich-text value by them; the demo space writes them.
 */
export const RICHTEXT_NODE_TYPES = [
  'doc',
  'paragraph',
  'text',
  'heading',
  'blockquote',
  'bullet_list',
  'ordered_list',
  'list_item',
  'code_block',
  'hard_break',
  'horizontal_rule',
  'image',
  'emoji',
  'blok',
  'table',
  'tableRow',
  'tableCell',
  'tableHeader',
] as const;

/** Marks without a target; `link` (below) is the one that names a story, a URL, an asset or an email. */
export const RICHTEXT_PLAIN_MARK_TYPES = [
  'bold',
  'italic',
  'strike',
  'underline',
  'code',
  'superscript',
  'subscript',
  'highlight',
  'textStyle',
  'anchor',
  'styled',
] as const;

export const RICHTEXT_MARK_TYPES = [...RICHTEXT_PLAIN_MARK_TYPES, 'link'] as const;
