import type { GuardName } from '../definition.js';
import type { ErrorIssue } from '../errors.js';
import { BOUNDED_JQL_RULE, isBoundedJql } from './bounded-jql.js';

/** Named checks a manifest attaches to an action; each returns an issue when the param breaks it. */
export const guards: Record<GuardName, (param: string, value: unknown) => ErrorIssue | undefined> = {
  bounded_jql(param, value) {
    if (isBoundedJql(typeof value === 'string' ? value : undefined)) return undefined;
    return { field: param, rule: 'bounded_jql', message: `${param} is unbounded: ${BOUNDED_JQL_RULE}` };
  },
};
