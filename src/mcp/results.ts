/**
 * Tool results for the model: records plus next_params, a page too large for one result split with
 * record_offset (never silently cut), and errors as tool errors carrying Switchyard's message.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { SwitchyardError, ValidationError } from '../../runtime/errors.js';
import type { ExecuteOutcome } from './backend.js';

export function jsonResult(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: value };
}

export function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

/** The tool result of one execute page. A list larger than maxChars is returned in parts: call again with record_offset. */
export function executeResult(outcome: ExecuteOutcome, recordOffset: number, maxChars: number): CallToolResult {
  const paging = { ...(outcome.pagination !== undefined && { pagination: outcome.pagination }), next_params: outcome.next_params ?? null };
  if (!Array.isArray(outcome.data)) return jsonResult({ record: outcome.data, ...paging });
  const records = outcome.data;
  if (recordOffset > 0 && recordOffset >= records.length) {
    // The page was read again for this call and holds fewer records than the offset (it changed upstream).
    const message = `record_offset ${recordOffset} is past the end of this page, which now holds ${records.length} records; call execute without record_offset to read the page again.`;
    throw new ValidationError(message, [{ field: 'record_offset', rule: 'maximum', message, limit: Math.max(0, records.length - 1) }]);
  }
  const part: unknown[] = [];
  let size = 0;
  for (let i = recordOffset; i < records.length; i += 1) {
    const length = JSON.stringify(records[i]).length + 1;
    if (part.length > 0 && size + length > maxChars) break;
    part.push(records[i]);
    size += length;
  }
  const next = recordOffset + part.length;
  const rest = records.length - next;
  const result: Record<string, unknown> = { records: part, record_count: part.length, ...paging };
  if (rest > 0) {
    result.rest_of_page = {
      record_offset: next,
      remaining: rest,
      note: `This page holds ${records.length} records; ${rest} more did not fit in this result. Call execute again with the same params and record_offset ${next} for them, before following next_params.`,
    };
  }
  return jsonResult(result);
}

function describeLimit(limit: unknown): string {
  if (Array.isArray(limit)) return `allowed: ${limit.map((v) => JSON.stringify(v)).join(', ')}`;
  return `limit: ${JSON.stringify(limit)}`;
}

/** An error as the model sees it: Switchyard's message and each issue (field, rule, what to send instead). Never a stack or a secret. */
export function errorResult(error: unknown): CallToolResult {
  if (!(error instanceof SwitchyardError)) {
    return {
      isError: true,
      content: [{ type: 'text', text: 'Switchyard could not run this tool because of an internal error; the server log has the details.' }],
    };
  }
  const lines = [error.message];
  for (const issue of error.issues) {
    // Some messages say where they are already ("query.filter.eq: unknown field ..."): the field is not repeated.
    const located = issue.field !== '' && issue.message.startsWith(`${issue.field}: `) ? issue.message : `${issue.field || '(params)'}: ${issue.message}`;
    lines.push(`- ${located} [rule: ${issue.rule}${issue.limit !== undefined ? `; ${describeLimit(issue.limit)}` : ''}]`);
  }
  return {
    isError: true,
    content: [{ type: 'text', text: lines.join('\n') }],
    structuredContent: { error: { code: error.code, message: error.message, issues: error.issues } },
  };
}
