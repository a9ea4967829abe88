import { CredentialsError } from './errors.js';

/** Values a manifest template may reference: {{credentials.X}}, {{config.X}}, {{token.X}}. */
export interface TemplateContext {
  credentials: Record<string, string>;
  config: Record<string, string>;
  token: Record<string, string>;
}

export const TEMPLATE_PATTERN = /\{\{\s*(credentials|config|token)\.([A-Za-z0-9_]+)\s*\}\}/g;

export function templateReferences(template: string): Array<{ source: keyof TemplateContext; name: string }> {
  return [...template.matchAll(TEMPLATE_PATTERN)].map((m) => ({ source: m[1] as keyof TemplateContext, name: m[2] as string }));
}

export function renderTemplate(template: string, context: TemplateContext): string {
  return template.replace(TEMPLATE_PATTERN, (_match, source: keyof TemplateContext, name: string) => {
    const value = context[source][name];
    if (value === undefined || value === '') {
      throw new CredentialsError(`The ${source} value "${name}" is required by this connector but was not provided.`);
    }
    return value;
  });
}
