import { SEGMENT_FIELDS, SEGMENT_MAX_DEPTH, SegmentOp, attributeKey, fieldKind, type ConditionScalar, type SegmentCriteria, type SegmentNode } from '@tidings/contracts';
import type { FieldErrors } from './form.tsx';
import { attributeFromText, attributeToText } from '../attribute-text.ts';

/**
 * The criteria builder's state as the form holds it (before validation): groups of all/any, and conditions whose
 * value is the text typed. Every node of the form is named by its path (`r`, `r.0`, `r.1.2`), so the builder works
 * without a script: each button posts the whole form back with what to do.
 */
export type BuilderGroup = { join: 'all' | 'any'; items: BuilderNode[] };
export type BuilderCondition = { field: string; attr: string; op: string; value: string };
export type BuilderNode = BuilderGroup | BuilderCondition;

const ROOT = 'r';
/** More nodes than the contract allows conditions (200) plus groups: a form with more is not one of ours. */
const MAX_NODES = 400;
const OP_LABELS: Record<SegmentOp, string> = {
  eq: 'is',
  neq: 'is not',
  contains: 'contains',
  startsWith: 'starts with',
  gt: 'is more than',
  gte: 'is at least',
  lt: 'is less than',
  lte: 'is at most',
  exists: 'is set',
  notExists: 'is not set',
  in: 'is one of',
};
const FIELD_LABELS: Record<(typeof SEGMENT_FIELDS)[number], string> = {
  email: 'Email',
  phone: 'Phone',
  firstName: 'First name',
  lastName: 'Last name',
  emailSubscribed: 'Subscribed to email',
  smsSubscribed: 'Subscribed to SMS',
  createdAt: 'Added',
};
const ATTRIBUTE = 'attribute';

const isGroup = (node: BuilderNode): node is BuilderGroup => 'items' in node;
export const newCondition = (): BuilderCondition => ({ field: 'emailSubscribed', attr: '', op: 'eq', value: 'true' });

/** The builder state of stored criteria. */
export function builderOf(criteria: SegmentCriteria): BuilderGroup {
  const join = 'all' in criteria ? 'all' : 'any';
  const items = 'all' in criteria ? criteria.all : criteria.any;
  return { join, items: items.map((node) => ('all' in node || 'any' in node ? builderOf(node as SegmentCriteria) : conditionOf(node))) };
}

function conditionOf(node: Exclude<SegmentNode, SegmentCriteria>): BuilderCondition {
  const key = attributeKey(node.field);
  const text = (v: ConditionScalar) => (key !== null ? attributeToText(v) : String(v));
  const value = node.value === undefined ? '' : Array.isArray(node.value) ? node.value.map(text).join(', ') : text(node.value);
  return { field: key !== null ? ATTRIBUTE : node.field, attr: key ?? '', op: node.op, value };
}

/** The criteria the builder describes, for the contract's schema to check; values typed as their field needs. */
export function criteriaOf(group: BuilderGroup): SegmentCriteria {
  const items = group.items.map((node): SegmentNode => (isGroup(node) ? criteriaOf(node) : conditionCriteria(node)));
  return group.join === 'all' ? { all: items } : { any: items };
}

function conditionCriteria(condition: BuilderCondition): SegmentNode {
  const field = condition.field === ATTRIBUTE ? `attributes.${condition.attr.trim()}` : condition.field;
  if (condition.op === 'exists' || condition.op === 'notExists') return { field, op: condition.op };
  const kind = fieldKind(field);
  const scalar = (text: string): ConditionScalar => {
    if (kind === 'boolean') return text === 'true' ? true : text === 'false' ? false : text;
    if (kind !== 'attribute') return text;
    const value = attributeFromText(text);
    return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : text;
  };
  const value = condition.op === 'in' ? condition.value.split(',').map((one) => scalar(one.trim())) : scalar(condition.value.trim());
  return { field, op: condition.op as SegmentOp, value };
}

const segmentsOf = (path: string) => path.split('.').slice(1).map(Number);

/**
 * The builder state a posted form holds, and each node by its path (for the button that acts on one).
 * @example const { root, byPath } = readBuilder(await c.req.parseBody({ all: true }));
 */
export function readBuilder(form: Record<string, unknown>): { root: BuilderGroup; byPath: Map<string, BuilderNode> } {
  const text = (name: string) => (typeof form[name] === 'string' ? (form[name] as string) : '');
  const joinOf = (path: string) => (text(`join.${path}`) === 'any' ? 'any' : 'all');
  const root: BuilderGroup = { join: joinOf(ROOT), items: [] };
  const byPath = new Map<string, BuilderNode>([[ROOT, root]]);
  const paths = Object.keys(form)
    .flatMap((name) => /^(join|field)\.(r(\.\d{1,3}){1,6})$/.exec(name)?.[2] ?? [])
    .slice(0, MAX_NODES)
    .sort((a, b) => {
      const [x, y] = [segmentsOf(a), segmentsOf(b)];
      for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
      return x.length - y.length;
    });
  for (const path of paths) {
    const parent = byPath.get(path.slice(0, path.lastIndexOf('.')));
    if (!parent || !isGroup(parent) || byPath.has(path)) continue;
    const node: BuilderNode =
      `join.${path}` in form
        ? { join: joinOf(path), items: [] }
        : { field: text(`field.${path}`), attr: text(`attr.${path}`), op: text(`op.${path}`), value: text(`value.${path}`) };
    parent.items.push(node);
    byPath.set(path, node);
  }
  return { root, byPath };
}

/**
 * Does what a builder button asks (`add-condition:<path>`, `add-group:<path>`, `remove:<path>`); false when the
 * button names no such node.
 */
export function applyBuilderAction(action: string, byPath: Map<string, BuilderNode>): boolean {
  const [verb, path = ''] = action.split(':');
  const node = byPath.get(path);
  if (!node) return false;
  if (verb === 'add-condition' && isGroup(node)) node.items.push(newCondition());
  else if (verb === 'add-group' && isGroup(node) && segmentsOf(path).length < SEGMENT_MAX_DEPTH - 1) node.items.push({ join: 'any', items: [newCondition()] });
  else if (verb === 'remove' && path !== ROOT) {
    const parent = byPath.get(path.slice(0, path.lastIndexOf('.'))) as BuilderGroup;
    parent.items = parent.items.filter((item) => item !== node);
  } else return false;
  return true;
}

/**
 * Errors of the contract's criteria schema by builder path (`r.1.0`); the issue path walks `all`/`any` and indexes.
 * @example builderErrors(CreateSegmentBody.safeParse(body).error.issues) // { 'r.0': 'gt does not apply to email' }
 */
export function builderErrors(issues: { path: PropertyKey[]; message: string }[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const path = issue.path[0] === 'criteria' ? issue.path.slice(1) : issue.path;
    if (issue.path[0] === 'name') {
      errors.name ??= `${issue.message.charAt(0).toUpperCase()}${issue.message.slice(1)}.`;
      continue;
    }
    let node = ROOT;
    for (let i = 0; i < path.length; i++) {
      if ((path[i] === 'all' || path[i] === 'any') && typeof path[i + 1] === 'number') node += `.${path[++i] as number}`;
    }
    errors[node] ??= issue.message;
  }
  return errors;
}

function ConditionView({ condition, path, errors }: { condition: BuilderCondition; path: string; errors: FieldErrors }) {
  const noValue = condition.op === 'exists' || condition.op === 'notExists';
  return (
    <div class="condition" data-path={path} aria-invalid={errors[path] ? 'true' : undefined}>
      <div class="create-row">
        <label>
          Field
          <select name={`field.${path}`}>
            {SEGMENT_FIELDS.map((field) => (
              <option value={field} selected={condition.field === field}>
                {FIELD_LABELS[field]}
              </option>
            ))}
            <option value={ATTRIBUTE} selected={condition.field === ATTRIBUTE}>
              Attribute…
            </option>
          </select>
        </label>
        <label>
          Attribute
          <input name={`attr.${path}`} value={condition.attr} placeholder="e.g. plan" maxlength={64} size={10} />
        </label>
        <label>
          Operator
          <select name={`op.${path}`}>
            {SegmentOp.options.map((op) => (
              <option value={op} selected={condition.op === op}>
                {OP_LABELS[op]}
              </option>
            ))}
          </select>
        </label>
        <label class="grow">
          Value
          <input name={`value.${path}`} value={noValue ? '' : condition.value} placeholder={condition.op === 'in' ? 'a, b, c' : 'text, number, true/false or a date'} />
        </label>
        <button type="submit" name="do" value={`remove:${path}`} class="secondary outline small" aria-label="Remove this condition">
          Remove
        </button>
      </div>
      {errors[path] && <small class="field-error">{errors[path]}</small>}
    </div>
  );
}

/**
 * The criteria builder (inside a form): a group's all/any, its conditions and nested groups, and the buttons that
 * add and remove them; errors by path next to their node.
 * @example <form method="post" action="/segments/new"><GroupView group={root} errors={errors} /></form>
 */
export function GroupView({ group, path = ROOT, errors }: { group: BuilderGroup; path?: string; errors: FieldErrors }) {
  return (
    <fieldset class="segment-group" data-path={path} aria-invalid={errors[path] ? 'true' : undefined}>
      <legend>
        Contacts matching{' '}
        <select name={`join.${path}`} aria-label="Match all or any">
          <option value="all" selected={group.join === 'all'}>
            all
          </option>
          <option value="any" selected={group.join === 'any'}>
            any
          </option>
        </select>{' '}
        of:
      </legend>
      {group.items.map((item, i) =>
        isGroup(item) ? <GroupView group={item} path={`${path}.${i}`} errors={errors} /> : <ConditionView condition={item} path={`${path}.${i}`} errors={errors} />,
      )}
      {errors[path] && <small class="field-error">{errors[path]}</small>}
      <div class="actions">
        <button type="submit" name="do" value={`add-condition:${path}`} class="secondary outline small">
          + Condition
        </button>
        {segmentsOf(path).length < SEGMENT_MAX_DEPTH - 1 && (
          <button type="submit" name="do" value={`add-group:${path}`} class="secondary outline small">
            + Group
          </button>
        )}
        {path !== ROOT && (
          <button type="submit" name="do" value={`remove:${path}`} class="secondary outline small">
            Remove group
          </button>
        )}
      </div>
    </fieldset>
  );
}

/** Criteria as a nested list of sentences, for people who read them (members). */
export function CriteriaSummary({ criteria }: { criteria: SegmentCriteria }) {
  const join = 'all' in criteria ? 'all' : 'any';
  const items = 'all' in criteria ? criteria.all : criteria.any;
  return (
    <div class="criteria-summary">
      Contacts matching {join} of:
      <ul>
        {items.map((node) => (
          <li>
            {'all' in node || 'any' in node ? (
              <CriteriaSummary criteria={node as SegmentCriteria} />
            ) : (
              <>
                <code>{node.field}</code> {OP_LABELS[node.op]} {node.value !== undefined && <code>{JSON.stringify(node.value)}</code>}
              </>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
