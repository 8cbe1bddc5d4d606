import { TokenKind } from 'liquidjs';
import { unstorableText } from '@tidings/contracts/storable-text';
import { LIQUID_MEMORY_LIMIT, parseParts, type TemplateContent } from './template-engine.ts';

/** A part reduced to text and the variable paths it inserts (`{{ contact.firstName }}` is ['contact', 'firstName']). */
type Piece = string | string[];
type SimplePart = { part: keyof TemplateContent; pieces: Piece[]; isEscaped: boolean };

/** Renders one set of variables as Liquid would, or null when only Liquid itself can say (see compileSimpleTemplate). */
export type SimpleRender = (variables: Record<string, unknown>) => Required<TemplateContent> | null;

// Keys Liquid reads specially (`size` of a string, `first` of an array), whatever the object holds.
const SPECIAL_KEYS = new Set(['size', 'first', 'last']);
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&#34;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
const NOT_SIMPLE = Symbol('not simple');

/** What an output node holds, as far as it is read here (liquidjs does not export these shapes). */
type Value = {
  initial?: { postfix?: { kind?: number; variable?: unknown; props?: { kind?: number; content?: unknown }[] }[] };
  filters?: { handler: unknown; args: unknown[] }[];
};

/** The parts as pieces when every node is text or an output of a plain path without filters (html's escape aside). */
function piecesOf(content: TemplateContent): SimplePart[] | null {
  const parts: SimplePart[] = [];
  for (const { part, engine, templates } of parseParts(content)) {
    const isEscaped = Boolean(engine.options.outputEscape);
    const pieces: Piece[] = [];
    for (const node of templates as unknown[]) {
      const { token, str, value } = node as { token?: { kind?: number }; str?: unknown; value?: Value };
      if (token?.kind === TokenKind.HTML && typeof str === 'string') {
        pieces.push(str);
        continue;
      }
      if (token?.kind !== TokenKind.Output || !value?.initial?.postfix || !value.filters) return null;
      const filters = value.filters;
      const isPlain = isEscaped ? filters.length === 1 && filters[0]!.handler === engine.options.outputEscape && filters[0]!.args.length === 0 : filters.length === 0;
      const [access, ...rest] = value.initial.postfix;
      if (!isPlain || rest.length > 0 || access?.kind !== TokenKind.PropertyAccess || access.variable || !access.props?.length) return null;
      const path: string[] = [];
      for (const prop of access.props) {
        if (prop.kind !== TokenKind.Word || typeof prop.content !== 'string' || SPECIAL_KEYS.has(prop.content)) return null;
        path.push(prop.content);
      }
      pieces.push(path);
    }
    parts.push({ part, pieces, isEscaped });
  }
  return parts;
}

/** What Liquid prints for `path` in `variables` when it is an own property of plain objects all the way down. */
function valueAt(variables: Record<string, unknown>, path: string[]): string | typeof NOT_SIMPLE {
  let value: unknown = variables;
  for (const key of path) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return NOT_SIMPLE;
    const prototype = Object.getPrototypeOf(value);
    if ((prototype !== Object.prototype && prototype !== null) || !Object.hasOwn(value, key)) return NOT_SIMPLE;
    value = (value as Record<string, unknown>)[key];
  }
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return value === null ? '' : NOT_SIMPLE;
}

/**
 * For a template that only inserts variables (`Hi {{ contact.firstName }}`: no tags, no filters), a renderer that
 * skips Liquid: a broadcast chunk renders it for each contact on the calling thread, where Liquid's own machinery
 * (and a render thread's round trip) cost more than the text. It cannot loop, so no time budget applies. It gives
 * Liquid's output exactly, or null for a set of variables it does not handle the same way (a missing or null-valued
 * path on the way, a value that is not a string, number or null, output Postgres cannot store, an html part past
 * Liquid's memory limit): render those with Liquid, which also gives the error. Null for any other template,
 * including one that does not parse.
 * @example compileSimpleTemplate({ subject: 'Hi {{ contact.firstName }}' })?.({ contact: { firstName: 'Ada' } }) // { subject: 'Hi Ada', html: null, text: null, body: null }
 */
export function compileSimpleTemplate(content: TemplateContent): SimpleRender | null {
  let parts: SimplePart[] | null;
  try {
    parts = piecesOf(content);
  } catch {
    return null; // it does not parse: Liquid's renderer gives the error
  }
  if (!parts) return null;
  const simpleParts = parts;
  return (variables) => {
    const out: Required<TemplateContent> = { subject: null, html: null, text: null, body: null };
    for (const { part, pieces, isEscaped } of simpleParts) {
      let text = '';
      let escapedLength = 0; // what Liquid's escape filter counts against its memory limit
      for (const piece of pieces) {
        if (typeof piece === 'string') {
          text += piece;
          continue;
        }
        const value = valueAt(variables, piece);
        if (value === NOT_SIMPLE) return null;
        if (isEscaped) escapedLength += value.length;
        text += isEscaped ? escapeHtml(value) : value;
      }
      if (escapedLength > LIQUID_MEMORY_LIMIT || unstorableText(text)) return null;
      out[part] = text;
    }
    return out;
  };
}
