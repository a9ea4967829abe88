/**
 * Decides whether a Jira JQL search is bounded: restricted by project, assignee, reporter, issue key,
 * parent or sprint, in every OR branch, and not only under NOT. A date filter alone is unbounded.
 */

const BOUNDING_FIELDS = new Set(['project', 'assignee', 'reporter', 'key', 'issuekey', 'issue', 'id', 'parent', 'sprint']);
const BOUNDING_OPERATORS = new Set(['=', 'in', 'was', 'was in', '~']);

type Node = { kind: 'or' | 'and'; children: Node[] } | { kind: 'not'; child: Node } | { kind: 'clause'; field: string; operator: string } | { kind: 'empty' };

function tokenize(jql: string): string[] {
  const tokens: string[] = [];
  const pattern = /\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|!=|>=|<=|!~|[=<>~(),]|[^\s"'=<>!~(),]+)/gy;
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
    while (this.peek() === 'or') {
      this.index++;
      children.push(this.and());
    }
    return children.length === 1 ? (children[0] as Node) : { kind: 'or', children };
  }

  private and(): Node {
    const children = [this.unary()];
    while (this.peek() === 'and') {
      this.index++;
      children.push(this.unary());
    }
    return children.length === 1 ? (children[0] as Node) : { kind: 'and', children };
  }

  private unary(): Node {
    const token = this.peek();
    if (token === 'not') {
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
      if (depth === 0 && (token === 'and' || token === 'or' || token === ')')) break;
      if (token === '(') depth++;
      if (token === ')') depth--;
      this.index++;
    }
    return { kind: 'clause', field, operator: operatorParts.join(' ') };
  }
}

function bounded(node: Node): boolean {
  switch (node.kind) {
    case 'empty':
    case 'not':
      return false;
    case 'clause':
      return BOUNDING_FIELDS.has(node.field) && BOUNDING_OPERATORS.has(node.operator);
    case 'and':
      return node.children.some(bounded);
    case 'or':
      return node.children.every(bounded);
  }
}

export function isBoundedJql(jql: string | undefined): boolean {
  if (jql === undefined) return false;
  return bounded(new Parser(stripOrderBy(tokenize(jql))).parse());
}

export const BOUNDED_JQL_RULE =
  'the JQL must be bounded: restrict it with project, assignee, reporter, issue key, parent or sprint (in every OR branch); ' +
  'a date filter needs a project restriction beside it, e.g. "project = ABC AND created >= -7d"';
