/** Reading a component schema export (`{ components: [...] }`, as the management API exports it). */

export interface SchemaField {
  type: string;
  source?: string;
  /** Option values for `source` self (the default). */
  options?: string[];
  datasourceSlug?: string;
  /** Components allowed in a bloks or rich-text field, when restricted. */
  whitelist?: string[];
  /** Content types a story relation may point to. */
  filterContentType?: string[];
  /** Plugin name of a custom field. */
  plugin?: string;
}

export interface SchemaComponent {
  name: string;
  isRoot: boolean;
  fields: Map<string, SchemaField>;
}

export type Schema = Map<string, SchemaComponent>;

const NOT_FIELDS = new Set(['tab', 'section']);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/**
 * What is wrong with a component schema export, if anything: it is a list of components or an
 * object listing them under `components`. Anything else (one component's file, another JSON file)
 * would add nothing to the types and say nothing.
 */
export function schemaProblem(input: unknown): string | undefined {
  if (Array.isArray(input) || (isObject(input) && Array.isArray(input.components))) return undefined;
  const what =
    isObject(input) && typeof input.name === 'string' ? `one component ("${input.name}")` : 'no list of components';
  return `it holds ${what}: a component schema export is {"components": [...]} or [...], a list of components`;
}

export function parseSchema(input: unknown): Schema {
  const list = Array.isArray(input)
    ? input
    : isObject(input) && Array.isArray(input.components)
      ? input.components
      : [];
  const components = list.filter(isObject);
  const byGroup = new Map<string, string[]>();
  for (const c of components) {
    if (typeof c.name === 'string' && typeof c.component_group_uuid === 'string') {
      const names = byGroup.get(c.component_group_uuid) ?? [];
      names.push(c.name);
      byGroup.set(c.component_group_uuid, names);
    }
  }
  const schema: Schema = new Map();
  for (const c of components) {
    if (typeof c.name !== 'string') continue;
    const fields = new Map<string, SchemaField>();
    const raw = isObject(c.schema) ? c.schema : {};
    for (const key of Object.keys(raw)) {
      const f = raw[key];
      if (!isObject(f) || typeof f.type !== 'string' || NOT_FIELDS.has(f.type)) continue;
      const field: SchemaField = { type: f.type };
      if (typeof f.source === 'string' && f.source !== '') field.source = f.source;
      if (
        (f.type === 'option' || f.type === 'options') &&
        (field.source === undefined || field.source === 'self') &&
        Array.isArray(f.options)
      ) {
        field.options = f.options
          .filter(isObject)
          .map((o) => o.value)
          .filter((v): v is string => typeof v === 'string');
      }
      if (typeof f.datasource_slug === 'string' && f.datasource_slug !== '') field.datasourceSlug = f.datasource_slug;
      if (f.restrict_components === true) {
        const names = new Set<string>(strings(f.component_whitelist));
        if (f.restrict_type === 'groups') {
          for (const g of strings(f.component_group_whitelist)) for (const n of byGroup.get(g) ?? []) names.add(n);
        }
        if (names.size > 0) field.whitelist = [...names].sort();
      }
      if (field.source === 'internal_stories') {
        const ct = typeof f.filter_content_type === 'string' ? [f.filter_content_type] : strings(f.filter_content_type);
        if (ct.length > 0) field.filterContentType = ct;
      }
      if (f.type === 'custom' && typeof f.field_type === 'string') field.plugin = f.field_type;
      fields.set(key, field);
    }
    schema.set(c.name, { name: c.name, isRoot: c.is_root === true, fields });
  }
  return schema;
}
