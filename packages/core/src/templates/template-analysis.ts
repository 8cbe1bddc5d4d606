import { type Template, toValueSync, TypeGuards, type Value, type ValueToken } from 'liquidjs';

type Argument = Value | ValueToken;

/**
 * The root names a value reads (`order.items[i]` reads `order` and `i`), as Liquid's own analysis finds them, without
 * the source position Liquid works out for each one by scanning the template from its start (which made its analysis
 * quadratic: 84 KB of `{{ a }}` took seconds).
 */
function* rootsOf(value: Argument | undefined): Generator<string> {
  if (!value) return;
  if (TypeGuards.isRangeToken(value)) {
    yield* rootsOf(value.lhs);
    yield* rootsOf(value.rhs);
  } else if (TypeGuards.isPropertyAccessToken(value)) {
    const [root, ...rest] = value.props;
    if (TypeGuards.isQuotedToken(root) || TypeGuards.isNumberToken(root) || TypeGuards.isWordToken(root)) yield root.content as string;
    else if (TypeGuards.isPropertyAccessToken(root)) yield* rootsOf(root);
    for (const prop of rest) if (TypeGuards.isPropertyAccessToken(prop)) yield* rootsOf(prop);
  } else if ('initial' in value || TypeGuards.isFilteredValueToken(value)) {
    // a filtered value (an output, a grouped expression): its operands and its filters' arguments
    const filtered = value as unknown as { initial: { postfix: unknown[] }; filters: { args: unknown[] }[] };
    for (const token of filtered.initial.postfix) if (TypeGuards.isValueToken(token)) yield* rootsOf(token);
    for (const filter of filtered.filters) {
      for (const arg of filter.args) yield* rootsOf((Array.isArray(arg) ? arg[1] : TypeGuards.isValueToken(arg) ? arg : undefined) as Argument | undefined);
    }
  }
}

/**
 * The top-level variable names parsed templates read, in order of first use, leaving out names the template gives
 * itself (`assign`, `capture`, loop variables): what Liquid's `globalVariablesSync` answers, in time linear in the
 * template. Throws what Liquid throws for a partial (`include`, `render`): there are none to read.
 * @example globalVariableNames(engine.parse('{% for i in items %}{{ i }}{{ n }}{% endfor %}')) // ['items', 'n']
 */
export function globalVariableNames(templates: Template[]): string[] {
  const names = new Set<string>();
  const assigned = new Set<string>(); // assign/capture/increment: in scope from there on, everywhere
  const blocks: Set<string>[] = [];
  const inScope = (name: string) => assigned.has(name) || blocks.some((block) => block.has(name));
  const visit = (template: Template) => {
    for (const arg of template.arguments?.() ?? []) for (const name of rootsOf(arg)) if (!inScope(name)) names.add(name);
    for (const ident of template.localScope?.() ?? []) assigned.add(ident.content as string);
    if (!template.children) return;
    const block = template.blockScope ? new Set(template.blockScope()) : null;
    if (block) blocks.push(block);
    for (const child of toValueSync(template.children(true, true))) visit(child);
    if (block) blocks.pop();
  };
  for (const template of templates) visit(template);
  return [...names];
}

/** The tags and outputs (`{% %}`, `{{ }}`) in a source: what parsing and analysing it costs grows with them. */
export function countTags(source: string): number {
  let count = 0;
  for (let at = source.indexOf('{'); at !== -1; at = source.indexOf('{', at + 1)) {
    const next = source.charCodeAt(at + 1);
    if (next === 123 /* { */ || next === 37 /* % */) count++;
  }
  return count;
}
