/**
 * Decides whether a Jira JQL search is bounded: restricted by project, assignee, reporter, issue key,
 * parent or sprint, in every OR branch, and not only under NOT. A date filter alone is unbounded.
 * JQL spells its keywords both ways (AND/&&/&, OR/||/|, NOT/!); negation is pushed down to the
 * clauses, so NOT NOT project = ABC is bounded and NOT (project = ABC) is not.
 */

const BOUNDING_FIELDS = new Set(['project', 'assignee', 'reporter', 'key', 'issuekey', 'issue', 'id', 'parent', 'sprint']);
const BOUNDING_OPERATORS = new Set(['=', 'in', 'was', 'was in', '~']);
/** A negated clause with one of these operators reads as the bounding operator it negates. */
const NEGATED_OPERATORS: Record<string, string> = { '!=': '=', 'not in': 'in', 'was not': 'was', 'was not in': 'was in', '!~': '~' };
const OR_WORDS = new Set(['or', '||', '|']);
const AND_WORDS = new Set(['and', '&&', '&']);
const NOT_WORDS = new Set(['not', '!']);

type Node = { kind: 'or' | 'and'; children: Node[] } | { kind: 'not'; child: Node } | { kind: 'clause'; field: string; operator: string } | { kind: 'empty' };

function tokenize(jql: string): string[] {
  const tokens: string[] = [];
  const pattern = /\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|!=|>=|<=|!~|\|\||&&|[=<>~(),|&!]|[^\s"'=<>!~(),|&]+)/gy;
  let match: RegExpExecArray | null;
  while ((match = pattern.exec(jql)) !== null) {
    if (match[1] === undefined) break;
    tokens.push(match[1]);
    if (pattern.lastIndex >= jql.length) break;
  }
  return tokens;
}

function stripOrderBy(tokens: string[]): string[] {
  for (let i = 0; i < tokens.length - 1; i++) {
    if (tokens[i]?.toLowerCase() === 'order' && tokens[i + 1]?.toLowerCase() === 'by') return tokens.slice(0, i);
  }
  return tokens;
}

class Parser {
  private index = 0;
  constructor(private readonly tokens: string[]) {}

  parse(): Node {
    if (this.tokens.length === 0) return { kind: 'empty' };
    return this.or();
  }

  private peek(): string | undefined {
    return this.tokens[this.index]?.toLowerCase();
  }

  private or(): Node {
    const children = [this.and()];
    while (OR_WORDS.has(this.peek() ?? '')) {
      this.index++;
      children.push(this.and());
    }
    return children.length === 1 ? (children[0] as Node) : { kind: 'or', children };
  }

  private and(): Node {
    const children = [this.unary()];
    while (AND_WORDS.has(this.peek() ?? '')) {
      this.index++;
      children.push(this.unary());
    }
    return children.length === 1 ? (children[0] as Node) : { kind: 'and', children };
  }

  private unary(): Node {
    const token = this.peek();
    if (NOT_WORDS.has(token ?? '')) {
      this.index++;
      return { kind: 'not', child: this.unary() };
    }
    if (token === '(') {
      this.index++;
      const inner = this.or();
      if (this.peek() === ')') this.index++;
      return inner;
    }
    return this.clause();
  }

  private clause(): Node {
    const field = (this.tokens[this.index++] ?? '').replace(/^["']|["']$/g, '').toLowerCase();
    const operatorParts: string[] = [];
    while (this.peek() !== undefined && ['not', 'is', 'in', 'was', 'changed', '=', '!=', '>', '<', '>=', '<=', '~', '!~'].includes(this.peek() as string)) {
      operatorParts.push(this.peek() as string);
      this.index++;
    }
    let depth = 0;
    while (this.index < this.tokens.length) {
      const token = this.peek() as string;
      if (depth === 0 && (AND_WORDS.has(token) || OR_WORDS.has(token) || token === ')')) break;
      if (token === '(') depth++;
      if (token === ')') depth--;
      this.index++;
    }
    return { kind: 'clause', field, operator: operatorParts.join(' ') };
  }
}

/** Whether the node (negated when `negated`) restricts the search; NOT is pushed down by De Morgan's laws. */
function bounded(node: Node, negated = false): boolean {
  switch (node.kind) {
    case 'empty':
      return false;
    case 'not':
      return bounded(node.child, !negated);
    case 'clause': {
      const operator = negated ? NEGATED_OPERATORS[node.operator] : node.operator;
      return operator !== undefined && BOUNDING_FIELDS.has(node.field) && BOUNDING_OPERATORS.has(operator);
    }
    case 'and':
    case 'or': {
      const conjunction = (node.kind === 'and') !== negated;
      return conjunction ? node.children.some((c) => bounded(c, negated)) : node.children.every((c) => bounded(c, negated));
    }
  }
}

export function isBoundedJql(jql: string | undefined): boolean {
  if (jql === undefined) return false;
  return bounded(new Parser(stripOrderBy(tokenize(jql))).parse());
}

export const BOUNDED_JQL_RULE =
  'the JQL must be bounded: restrict it with project, assignee, reporter, issue key, parent or sprint (in every OR branch); ' +
  'a date filter needs a project restriction beside it, e.g. "project = ABC AND created >= -7d"';
