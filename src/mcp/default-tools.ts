/** The default tool surface: a fixed handful of tools whatever the number of connectors. */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

const connectorArg = {
  type: 'string',
  minLength: 1,
  description: 'A connector id from list_connectors (or its connector_type when the session has one connector of that type).',
} as const;

const readHints = { readOnlyHint: true, destructiveHint: false, idempotentHint: true } as const;

export const LIST_CONNECTORS: Tool = {
  name: 'list_connectors',
  title: 'List connectors',
  description: 'The connectors this session can use: id, connector_type, name, workspace, and how many entities and actions each offers. Start here.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  annotations: { title: 'List connectors', ...readHints, openWorldHint: false },
};

export const DESCRIBE: Tool = {
  name: 'describe',
  title: 'Describe a connector, entity or action',
  description:
    'Without entity: the entities and actions of a connector. With entity: its record fields (JSON Schema), id field, searchable fields and actions. With entity and action: the exact JSON Schema of the params, whether it reads, writes or destroys, and how it paginates.',
  inputSchema: {
    type: 'object',
    required: ['connector'],
    additionalProperties: false,
    properties: {
      connector: { ...connectorArg, description: `${connectorArg.description} A bare connector_type also works without a connector, to read its catalog.` },
      entity: { type: 'string', minLength: 1 },
      action: { type: 'string', minLength: 1, description: 'Needs entity.' },
    },
  },
  annotations: { title: 'Describe', ...readHints, openWorldHint: false },
};

export const SEARCH_ACTIONS: Tool = {
  name: 'search_actions',
  title: 'Find the right entity and action',
  description:
    'Ranks entity/action pairs of the connectors in this session for a need in plain words (e.g. "close a support ticket"), using the connector skill docs. Then call describe for the params.',
  inputSchema: {
    type: 'object',
    required: ['need'],
    additionalProperties: false,
    properties: {
      need: { type: 'string', minLength: 1, maxLength: 1000, description: 'What you want to do, in plain words.' },
      connector: { ...connectorArg, description: 'Limit the search to one connector (id or type).' },
      limit: { type: 'integer', minimum: 1, maximum: 25, default: 8 },
    },
  },
  annotations: { title: 'Search actions', ...readHints, openWorldHint: false },
};

export const EXECUTE: Tool = {
  name: 'execute',
  title: 'Execute an operation',
  description:
    'Runs {entity, action, params} on a connector against the vendor. Returns records (or one record), the native pagination keys and next_params: pass next_params merged into params for the next page (null on the last page). ' +
    'A page too large for one result says rest_of_page: call again with its record_offset. Check describe first: delete and other destructive actions cannot be undone.',
  inputSchema: {
    type: 'object',
    required: ['connector', 'entity', 'action'],
    additionalProperties: false,
    properties: {
      connector: connectorArg,
      entity: { type: 'string', minLength: 1 },
      action: { type: 'string', minLength: 1 },
      params: { type: 'object', description: "The action's params (see describe); omit when it needs none." },
      record_offset: { type: 'integer', minimum: 0, description: 'From rest_of_page of the previous result, to read the rest of the same page.' },
    },
  },
  // The surface runs writes and deletes too: the per-action tools carry exact hints.
  annotations: { title: 'Execute', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
};

export const CONTEXT_STORE_SEARCH: Tool = {
  name: 'context_store_search',
  title: 'Search synchronized data',
  description:
    'Searches the records Switchyard has synchronized from a connector (hosted mode): filter mode with query {filter, sort}, or semantic mode with semantic {field, prompt}. Richer than list and no vendor call. Returns records, record_count and meta {has_more, cursor}: pass cursor back for the next page.',
  inputSchema: {
    type: 'object',
    required: ['connector', 'entity'],
    additionalProperties: false,
    properties: {
      connector: connectorArg,
      entity: { type: 'string', minLength: 1 },
      query: { type: 'object', description: 'Filter mode: {filter: {eq: {field: value}} | {and: [...]}..., sort: [{field: "asc"|"desc"}]}.' },
      semantic: { type: 'object', description: 'Semantic mode: {field, prompt, filter?, min_similarity?, context_size?, dedup?}.' },
      limit: { type: 'integer', minimum: 1 },
      cursor: { type: 'string', description: 'meta.cursor of the previous result.' },
      fields: { type: 'array', items: { type: 'string' }, description: 'Dot paths to return per record.' },
    },
  },
  annotations: { title: 'Context store search', ...readHints, openWorldHint: false },
};

export const READ_DOCS: Tool = {
  name: 'read_docs',
  title: 'Read connector docs',
  description:
    "A connector's skill docs (also offered as resources): the overview with the section list, or one section such as issues.list with params, limits, pagination and record fields.",
  inputSchema: {
    type: 'object',
    required: ['connector'],
    additionalProperties: false,
    properties: {
      connector: { ...connectorArg, description: 'A connector id, or a connector_type.' },
      section: { type: 'string', minLength: 1, description: 'A section id from the overview, e.g. issues.list.' },
    },
  },
  annotations: { title: 'Read docs', ...readHints, openWorldHint: false },
};
