import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import standaloneCodeModule from 'ajv/dist/standalone/index.js';
import ts from 'typescript';
import type { ConnectorDefinition } from '../../runtime/definition.js';
import { validatorName } from '../../runtime/connector.js';
import { paramsSchema } from '../../runtime/params-schema.js';
import { GENERATED_HEADER } from './header.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const standaloneCode = standaloneCodeModule as unknown as (ajv: Ajv, refs: Record<string, string>) => string;

/** ajv standalone validators for every action's params, compiled now so nothing compiles at runtime. */
export function emitValidators(definition: ConnectorDefinition): string {
  const ajv = new Ajv({ allErrors: true, strict: false, code: { source: true, esm: true } });
  addFormats(ajv);
  const refs: Record<string, string> = {};
  for (const [entityName, entity] of Object.entries(definition.entities)) {
    for (const [actionName, action] of Object.entries(entity.actions)) {
      const id = validatorName(entityName, actionName);
      ajv.addSchema({ $id: id, ...paramsSchema(action) });
      refs[id] = id;
    }
  }
  const code = standaloneCode(ajv, refs).replace(/^"use strict";\n?/, '');
  // ajv's ESM output still loads its runtime helpers with require().
  return `${GENERATED_HEADER}import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\n${readable(code)}`;
}

/** Object and array literals longer than this (the schemas ajv embeds) get one property or element per line. */
const LITERAL_WIDTH = 100;

/** Breaks long object and array literals over lines; short ones stay on one. */
const breakLongLiterals: ts.TransformerFactory<ts.SourceFile> = (context) => {
  const visit = (node: ts.Node): ts.Node => {
    const visited = ts.visitEachChild(node, visit, context);
    const long = node.end - node.pos > LITERAL_WIDTH;
    if (long && ts.isObjectLiteralExpression(visited)) return context.factory.createObjectLiteralExpression(visited.properties, true);
    if (long && ts.isArrayLiteralExpression(visited)) return context.factory.createArrayLiteralExpression(visited.elements, true);
    return visited;
  };
  return (file) => ts.visitEachChild(file, visit, context);
};

/** ajv writes each validator on one line; reprinted one statement per line, so a reader (or a debugger) can follow it. */
function readable(code: string): string {
  const source = ts.createSourceFile('validators.js', code, ts.ScriptTarget.ES2022, false, ts.ScriptKind.JS);
  const [printed] = ts.transform(source, [breakLongLiterals]).transformed;
  return ts.createPrinter({ newLine: ts.NewLineKind.LineFeed }).printFile(printed ?? source);
}
