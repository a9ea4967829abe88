import { IndentationText, Project, QuoteKind, VariableDeclarationKind, type OptionalKind, type PropertySignatureStructure } from 'ts-morph';
import { callerMustGive, type ConnectorDefinition, type JsonObject, type JsonValue } from '../../runtime/definition.js';
import { GENERATED_HEADER } from './header.js';

export function pascalCase(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

function camelCase(name: string): string {
  const pascal = pascalCase(name);
  return pascal[0]!.toLowerCase() + pascal.slice(1);
}

function propertyName(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);
}

function docs(description: unknown): string[] | undefined {
  return typeof description === 'string' && description.trim() !== '' ? [description.trim().replace(/\*\//g, '* /')] : undefined;
}

/** A TypeScript type for a JSON Schema (the subset manifests use). */
export function schemaToType(schema: JsonValue | undefined): string {
  if (schema === undefined || schema === null || typeof schema !== 'object' || Array.isArray(schema)) return 'unknown';
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  // anyOf/oneOf beside type or properties only add constraints (e.g. "id or key required"); the base shape is the type.
  if (schema.type === undefined && schema.properties === undefined) {
    for (const key of ['oneOf', 'anyOf'] as const) {
      const variants = schema[key];
      if (Array.isArray(variants)) return variants.map((v) => schemaToType(v)).join(' | ');
    }
  }
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.length === 0) return schema.properties ? objectType(schema) : 'unknown';
  return types.map((type) => singleType(String(type), schema)).join(' | ');
}

function singleType(type: string, schema: JsonObject): string {
  switch (type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const items = schemaToType(schema.items);
      return `Array<${items}>`;
    }
    case 'object':
      return objectType(schema);
    default:
      return 'unknown';
  }
}

function objectType(schema: JsonObject): string {
  const properties = schema.properties;
  if (!properties || typeof properties !== 'object' || Array.isArray(properties) || Object.keys(properties).length === 0) {
    return 'Record<string, unknown>';
  }
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  const members = Object.entries(properties).map(([name, value]) => `${propertyName(name)}${required.has(name) ? '' : '?'}: ${schemaToType(value)}`);
  if (schema.additionalProperties !== false) members.push('[key: string]: unknown');
  return `{ ${members.join('; ')} }`;
}

/** Params types, record types and a typed facade (e.g. jira.issues.get({ issueIdOrKey })) for one connector. */
export function emitTypes(definition: ConnectorDefinition): string {
  const project = new Project({
    useInMemoryFileSystem: true,
    manipulationSettings: { indentationText: IndentationText.TwoSpaces, quoteKind: QuoteKind.Single },
  });
  const file = project.createSourceFile('types.ts');
  const prefix = pascalCase(definition.connectorType);
  file.addImportDeclaration({ isTypeOnly: true, moduleSpecifier: '../../connector.js', namedImports: ['Connector', 'ExecuteResult'] });
  file.addTypeAlias({ name: 'PaginationValue', type: 'string | number | boolean | null' });

  const facadeMembers: string[] = [];
  const facadeImpl: string[] = [];
  const operationMembers: string[] = [];
  const recordMembers: string[] = [];
  for (const [entityName, entity] of Object.entries(definition.entities)) {
    const entityType = `${prefix}${pascalCase(entityName)}`;
    const recordName = `${entityType}Record`;
    recordMembers.push(`${propertyName(entityName)}: ${recordName};`);
    file.addInterface({
      name: recordName,
      isExported: true,
      docs: docs(entity.description),
      properties: Object.entries(entity.record.fields).map(
        ([name, schema]): OptionalKind<PropertySignatureStructure> => ({
          name: propertyName(name),
          type: schemaToType(schema),
          docs: docs(schema.description),
        }),
      ),
      indexSignatures: [{ keyName: 'field', keyType: 'string', returnType: 'unknown' }],
    });
    const actionMembers: string[] = [];
    const actionImpl: string[] = [];
    const operationActions: string[] = [];
    for (const [actionName, action] of Object.entries(entity.actions)) {
      const paramsName = `${entityType}${pascalCase(actionName)}Params`;
      file.addInterface({
        name: paramsName,
        isExported: true,
        docs: docs(action.description),
        properties: Object.entries(action.params).map(([name, param]) => ({
          name: propertyName(name),
          hasQuestionToken: !callerMustGive(param),
          type: schemaToType(param.schema),
          docs: docs(param.description ?? param.schema.description),
        })),
        ...(action.additionalParams === 'body' && { indexSignatures: [{ keyName: 'field', keyType: 'string', returnType: 'unknown' }] }),
      });
      let paginationType = 'never';
      if (action.pagination) {
        paginationType = `${entityType}${pascalCase(actionName)}Pagination`;
        file.addInterface({
          name: paginationType,
          isExported: true,
          properties: Object.keys(action.pagination.block).map((key) => ({ name: propertyName(key), type: 'PaginationValue' })),
        });
      }
      // Records come back from list-like actions and get; writes answer with vendor-specific shapes.
      const data = action.result === 'many' ? `${recordName}[]` : actionName === 'get' ? recordName : 'Record<string, unknown>';
      const optional = Object.values(action.params).every((p) => !callerMustGive(p));
      const method = propertyName(camelCase(actionName));
      operationActions.push(`${propertyName(actionName)}: { params: ${paramsName}; data: ${data}; pagination: ${paginationType} };`);
      actionMembers.push(`${method}(params${optional ? '?' : ''}: ${paramsName}): Promise<ExecuteResult<${data}, ${paginationType}>>;`);
      actionImpl.push(
        `${method}: (params${optional ? ' = {}' : ''}) => connector.execute<${data}, ${paginationType}>(${JSON.stringify(entityName)}, ${JSON.stringify(actionName)}, { ...params }),`,
      );
    }
    facadeMembers.push(`${propertyName(entityName)}: {\n${actionMembers.join('\n')}\n};`);
    operationMembers.push(`${propertyName(entityName)}: {\n${operationActions.join('\n')}\n};`);
    facadeImpl.push(`${propertyName(entityName)}: {\n${actionImpl.join('\n')}\n},`);
  }
  file.addTypeAlias({
    name: `${prefix}Operations`,
    isExported: true,
    docs: [`Params, data and pagination of every ${definition.displayName} entity and action (the typed HTTP client uses it).`],
    type: `{\n${operationMembers.join('\n')}\n}`,
  });
  file.addTypeAlias({
    name: `${prefix}Records`,
    isExported: true,
    docs: [`The record type of every ${definition.displayName} entity.`],
    type: `{\n${recordMembers.join('\n')}\n}`,
  });
  const facadeName = `${prefix}Facade`;
  file.addTypeAlias({ name: facadeName, isExported: true, type: `{\n${facadeMembers.join('\n')}\n}` });
  file.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: [`Typed access to every ${definition.displayName} entity and action.`],
    declarations: [
      { name: `${camelCase(definition.connectorType)}Facade`, initializer: `(connector: Connector): ${facadeName} => ({\n${facadeImpl.join('\n')}\n})` },
    ],
  });
  file.formatText({ indentSize: 2 });
  return GENERATED_HEADER + file.getFullText();
}
