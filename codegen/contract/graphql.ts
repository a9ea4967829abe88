/**
 * GraphQL SDL spec format.
 *
 * For each action: graphql.document parses and validates against the SDL; every param
 * `in: variables` maps (first segment of its wire name) to a declared variable; a declared
 * non-null variable without default that no param feeds is reported too (the call could
 * never succeed).
 */
import { readFile } from 'node:fs/promises';
import { buildSchema, getLocation, Kind, parse, validate, GraphQLError, type DocumentNode, type GraphQLSchema, type VariableDefinitionNode } from 'graphql';
import type { ActionCheckInput, LoadedSpec, Mismatch, MismatchKind, SpecFormat } from './types.js';
import { firstSegment } from './openapi.js';

/** Builds a schema from SDL text. */
export function parseGraphqlSchema(sdl: string): GraphQLSchema {
  return buildSchema(sdl);
}

function locationOf(e: GraphQLError): string {
  const loc = e.locations?.[0];
  return loc ? `graphql.document ${loc.line}:${loc.column}` : 'graphql.document';
}

function firstLine(msg: string): string {
  return msg.split('\n')[0] ?? msg;
}

/** Checks one action against a GraphQL schema. Pure. */
export function checkGraphqlAction(schema: GraphQLSchema, input: ActionCheckInput): Mismatch[] {
  const { entity, action, def } = input.action;
  const out: Mismatch[] = [];
  const add = (kind: MismatchKind, message: string, where: string, param?: string, wire?: string): void => {
    out.push({ kind, entity, action, param, wire, message, where });
  };
  const source = def.graphql?.document;
  if (source === undefined) {
    add('graphql_document_missing', 'action has no graphql.document', `${def.method.toUpperCase()} ${def.path}`);
    return out;
  }
  let doc: DocumentNode;
  try {
    doc = parse(source);
  } catch (e) {
    if (e instanceof GraphQLError) add('graphql_parse', `document does not parse: ${firstLine(e.message)}`, locationOf(e));
    else add('graphql_parse', `document does not parse: ${String(e)}`, 'graphql.document');
    return out;
  }
  for (const e of validate(schema, doc)) {
    add('graphql_invalid', firstLine(e.message), locationOf(e));
  }

  const declared = new Map<string, VariableDefinitionNode>();
  for (const d of doc.definitions) {
    if (d.kind !== Kind.OPERATION_DEFINITION) continue;
    for (const v of d.variableDefinitions ?? []) declared.set(v.variable.name.value, v);
  }
  const fed = new Set<string>();
  for (const [name, p] of Object.entries(def.params)) {
    const wire = p.wire !== undefined && p.wire !== name ? p.wire : undefined;
    if (p.in === 'variables') {
      const variable = firstSegment(p.wire ?? name);
      fed.add(variable);
      if (!declared.has(variable)) {
        add('variable_undeclared', `param '${name}' maps to $${variable}, which the document does not declare`, 'graphql.document', name, wire);
      }
    } else if (p.in !== 'header') {
      add('param_location', `param '${name}' is in: ${p.in}; GraphQL actions take params in: variables`, 'graphql.document', name, wire);
    }
  }
  for (const [name, v] of declared) {
    if (!fed.has(name) && v.type.kind === Kind.NON_NULL_TYPE && v.defaultValue === undefined) {
      const loc = v.loc ? getLocation(v.loc.source, v.loc.start) : undefined;
      add('variable_unfed', `required variable $${name} is fed by no param`, loc ? `graphql.document ${loc.line}:${loc.column}` : 'graphql.document', name);
    }
  }
  return out;
}

export function graphqlLoaded(schema: GraphQLSchema): LoadedSpec {
  return { format: 'graphql', checkAction: (input) => checkGraphqlAction(schema, input) };
}

export const graphqlFormat: SpecFormat = {
  name: 'graphql',
  async load(absPath: string): Promise<LoadedSpec> {
    return graphqlLoaded(parseGraphqlSchema(await readFile(absPath, 'utf8')));
  },
};
