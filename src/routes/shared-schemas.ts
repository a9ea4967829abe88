/** JSON Schemas shared by route definitions (and so by the generated OpenAPI description). */

import { UUID_PATTERN_SOURCE } from '../uuid.js';

export const errorEnvelopeSchema = {
  type: 'object',
  required: ['message', 'errors'],
  properties: {
    message: { type: 'string' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['field', 'message', 'error_code'],
        properties: {
          field: { type: ['string', 'null'] },
          message: { type: 'string' },
          error_code: { type: 'string' },
          details: { type: 'object', additionalProperties: true },
        },
      },
    },
  },
} as const;

/** Response schemas for the error statuses a route can answer. */
export function errorResponses(...statuses: number[]): Record<number, typeof errorEnvelopeSchema> {
  return Object.fromEntries(statuses.map((status) => [status, errorEnvelopeSchema]));
}

export const uuidSchema = { type: 'string', pattern: UUID_PATTERN_SOURCE } as const;

export const idParamsSchema = {
  type: 'object',
  required: ['id'],
  additionalProperties: false,
  properties: { id: uuidSchema },
} as const;
