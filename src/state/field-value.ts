import type { Edit, Field, ScalarValue } from '../sim';

/** A field's value as its input shows it: empty when the text leaves it out. */
export function shownValue(value: ScalarValue | undefined): string {
  return value === undefined ? '' : String(value);
}

/**
 * What typing `raw` into a field asks of the text: set a value, take it out (empty, so the default applies), nothing
 * (it already says that), or a problem that names the field. The loader checks ranges and patterns once it is set.
 */
export function fieldEdit(field: Field, raw: string): { edit: Edit } | { problem: string } | null {
  const typed = raw.trim();
  if (typed === '') {
    if (field.value === undefined) return null;
    if (field.required) return { problem: `${field.key}: required, so it cannot be left empty` };
    return { edit: { op: 'unset', path: field.path } };
  }
  let value: ScalarValue = typed;
  if (field.input === 'boolean') {
    if (typed !== 'true' && typed !== 'false') return { problem: `${field.key}: expected true or false, got "${typed}"` };
    value = typed === 'true';
  } else if (field.input === 'number') {
    value = Number(typed);
    if (!Number.isFinite(value) || !/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(typed)) return { problem: `${field.key}: expected a number, got "${typed}"` };
    if (field.integer === true && !Number.isInteger(value)) return { problem: `${field.key}: expected a whole number, got ${typed}` };
  } else if (field.numeric === true && /^\d+$/.test(typed)) {
    value = Number(typed);
  } else if (field.input === 'choice' && field.options && !field.options.includes(typed)) {
    return { problem: `${field.key}: expected one of ${field.options.join(', ')}, got "${typed}"` };
  }
  if (value === field.value) return null;
  return { edit: { op: 'set', path: field.path, value } };
}

/** What a field takes, in a few words: its kind of value, its range, and its default or that it is required. */
export function fieldHint(field: Field): string {
  const parts: string[] = [];
  if (field.input === 'number') parts.push(field.integer === true ? 'whole number' : 'number');
  if (field.numeric === true) parts.push('a count or a percentage');
  if (field.above !== undefined) parts.push(`above ${field.above}`);
  if (field.min !== undefined && field.max !== undefined) parts.push(`${field.min} to ${field.max}`);
  else if (field.min !== undefined) parts.push(`at least ${field.min}`);
  else if (field.max !== undefined) parts.push(`at most ${field.max}`);
  if (field.required) parts.push('required');
  else if (field.default !== undefined) parts.push(`default ${String(field.default)}`);
  else parts.push('optional');
  return parts.join(' · ');
}
