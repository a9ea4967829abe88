/**
 * The HTML of the hosted connect page: plain server-rendered documents (no build step, no inline script
 * or style, so the Content-Security-Policy can forbid both). Forms are rendered from the JSON Schemas
 * the catalog publishes (a credential option's schema, the connector's settings schema); secret fields
 * are password inputs and no secret value is ever written into a page.
 */
import { randomUUID } from 'node:crypto';
import type { JsonObject, JsonValue } from '../../runtime/index.js';

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

const e = escapeHtml;

export function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${e(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/connect/assets/connect.css">
<script src="/connect/assets/connect.js" defer></script>
</head>
<body>
<main id="main">
${body}
</main>
</body>
</html>
`;
}

/** Hidden inputs that carry the widget token and the choices through a form post. */
function hidden(fields: Record<string, string | undefined>): string {
  return Object.entries(fields)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `<input type="hidden" name="${e(name)}" value="${e(value)}">`)
    .join('\n');
}

export interface TemplateLink {
  name: string;
  icon: string;
  href: string;
}

export function templateListPage(workspaceName: string, links: TemplateLink[]): string {
  const items =
    links.length === 0
      ? '<p>No connectors are enabled for you yet. Ask the application that sent you here to enable one.</p>'
      : `<ul class="templates">\n${links.map((link) => `<li><a href="${e(link.href)}"><img src="${e(link.icon)}" alt="" width="24" height="24"> ${e(link.name)}</a></li>`).join('\n')}\n</ul>`;
  return layout('Connect an account', `<h1>Connect an account</h1>\n<p>Choose the service to connect for <strong>${e(workspaceName)}</strong>.</p>\n${items}`);
}

type Schema = JsonObject;

/** Words a label spells in capitals, as people read them. */
const LABEL_WORDS: Record<string, string> = { api: 'API', id: 'ID', ids: 'IDs', url: 'URL', oauth: 'OAuth', pat: 'PAT', sso: 'SSO' };

/** A field name as a label: api_token -> "API token", account_id -> "Account ID". */
function humanize(name: string): string {
  const words = name
    .split(/[_\s]+/)
    .filter(Boolean)
    .map((word) => LABEL_WORDS[word.toLowerCase()] ?? word.toLowerCase());
  const first = words[0] ?? '';
  return [first.charAt(0).toUpperCase() + first.slice(1), ...words.slice(1)].join(' ');
}

function text(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** One input per property of an object JSON Schema; `prefix` namespaces the names (credentials., settings.). */
function schemaFields(schema: Schema, prefix: string, idPrefix: string, values: Record<string, string>, invalid: ReadonlySet<string> = new Set()): string {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties)
    .map(([name, property]) => {
      const id = `${idPrefix}-${name}`;
      const description = text(property.description);
      const isSecret = property.secret === true || property.airbyte_secret === true;
      const isRequired = required.has(name);
      const attributes = [`id="${e(id)}"`, `name="${e(`${prefix}${name}`)}"`];
      if (isRequired) attributes.push('required', 'aria-required="true"');
      // A field the last post was refused for (by name, or with its whole group: the vendor refusing the
      // credentials) points at the error summary, which names the problem.
      const refused = invalid.has(`${prefix}${name}`) || invalid.has(prefix.slice(0, -1));
      const describedBy = [...(refused ? ['form-error'] : []), ...(description !== undefined ? [`${id}-desc`] : [])];
      if (refused) attributes.push('aria-invalid="true"');
      if (describedBy.length > 0) attributes.push(`aria-describedby="${e(describedBy.join(' '))}"`);
      const label = `<label for="${e(id)}">${e(humanize(text(property.title) ?? name))}${isRequired ? ' <span class="required">(required)</span>' : ''}</label>`;
      const help = description === undefined ? '' : `<p class="help" id="${e(`${id}-desc`)}">${e(description)}</p>`;
      let control: string;
      const options = Array.isArray(property.enum) ? property.enum.filter((v): v is string => typeof v === 'string') : undefined;
      if (options) {
        const selected = values[name] ?? text(property.default);
        control = `<select ${attributes.join(' ')}>${options.map((option) => `<option value="${e(option)}"${option === selected ? ' selected' : ''}>${e(option)}</option>`).join('')}</select>`;
      } else if (isSecret) {
        control = `<input type="password" autocomplete="off" spellcheck="false" ${attributes.join(' ')}>`;
      } else {
        const value = values[name] ?? text(property.default);
        if (value !== undefined) attributes.push(`value="${e(value)}"`);
        if (typeof property.pattern === 'string') attributes.push(`pattern="${e(property.pattern)}"`);
        const example = Array.isArray(property.examples) ? text(property.examples[0]) : undefined;
        if (example !== undefined) attributes.push(`placeholder="${e(example)}"`);
        control = `<input type="text" autocomplete="off" spellcheck="false" ${attributes.join(' ')}>`;
      }
      return `<div class="field">\n${label}\n${help}\n${control}\n</div>`;
    })
    .join('\n');
}

export interface OptionForm {
  /** consent: "continue to the vendor" (OAuth); credentials: the option's fields are typed in. */
  kind: 'consent' | 'credentials';
  title: string;
  description?: string;
  /** The option's credential JSON Schema (credentials forms only). */
  credentialsSchema?: Schema;
}

export interface FormError {
  optionTitle: string;
  message: string;
  issues: string[];
  /** The form fields the problems concern (credentials.<name>, settings.<name>). */
  fields: string[];
}

export interface TemplatePageInput {
  token: string;
  returnTo?: string;
  templateId: string;
  displayName: string;
  icon: string;
  connectorName: string;
  /** Settings the end user fills in (the template presets the others). */
  settingsSchema: Schema;
  options: OptionForm[];
  error?: FormError;
  /** Non-secret values to show again after an error. */
  values?: { name?: string; settings: Record<string, string>; credentials: Record<string, string> };
}

/** The problems of the last post: each one when they are listed (the overall message repeats them), else the message. */
function errorSummary(error: FormError): string {
  const body = error.issues.length > 0 ? `<ul>${error.issues.map((issue) => `<li>${e(issue)}</li>`).join('')}</ul>` : `<p>${e(error.message)}</p>`;
  return `<div class="error" role="alert" tabindex="-1" id="form-error"><h3>Not connected</h3>${body}</div>`;
}

export function templatePage(input: TemplatePageInput): string {
  const sections = input.options.map((option, index) => {
    const idPrefix = `option${index}`;
    const error = input.error?.optionTitle === option.title ? errorSummary(input.error) : '';
    const values = input.error?.optionTitle === option.title ? input.values : undefined;
    const common = hidden({ token: input.token, template: input.templateId, option_title: option.title, redirect_uri: input.returnTo });
    const nameField = `<div class="field">
<label for="${idPrefix}-name">Connection name</label>
<input type="text" id="${idPrefix}-name" name="name" maxlength="200" value="${e(values?.name ?? input.connectorName)}">
</div>`;
    const invalid = new Set(input.error?.optionTitle === option.title ? input.error.fields : []);
    const settings = schemaFields(input.settingsSchema, 'settings.', `${idPrefix}-setting`, values?.settings ?? {}, invalid);
    const description = option.description === undefined ? '' : `<p>${e(option.description)}</p>`;
    if (option.kind === 'consent') {
      return `<section aria-labelledby="${idPrefix}-title">
<h2 id="${idPrefix}-title">${e(option.title)}</h2>
${error}
<p>You will sign in at ${e(input.displayName)} and approve access; no password or key is typed here.</p>
<form method="post" action="/connect/oauth/start">
${common}
${nameField}
${settings}
<button type="submit">Continue to ${e(input.displayName)}</button>
</form>
</section>`;
    }
    const credentials = schemaFields(option.credentialsSchema ?? {}, 'credentials.', `${idPrefix}-credential`, values?.credentials ?? {}, invalid);
    // The form's own id: a second post of it (double click, reload, back button) answers with the first one's connector.
    const submission = hidden({ submission: randomUUID() });
    return `<section aria-labelledby="${idPrefix}-title">
<h2 id="${idPrefix}-title">${e(option.title)}</h2>
${error}
${description}
<form method="post" action="/connect/connectors" autocomplete="off">
${common}
${submission}
${nameField}
${settings}
<fieldset>
<legend>Credentials</legend>
${credentials}
</fieldset>
<button type="submit">Connect</button>
</form>
</section>`;
  });
  const unplaced = input.error !== undefined && !input.options.some((option) => option.title === input.error?.optionTitle) ? errorSummary(input.error) : '';
  const body = `${unplaced}\n${input.options.length === 0 ? `<p>${e(input.displayName)} cannot be connected from this page yet.</p>` : sections.join('\n')}`;
  return layout(`Connect ${input.displayName}`, `<h1><img src="${e(input.icon)}" alt="" width="32" height="32"> Connect ${e(input.displayName)}</h1>\n${body}`);
}

export interface ConnectedPageInput {
  connectorId: string;
  connectorType: string;
  connectorName: string;
  displayName: string;
  workspaceName: string;
  allowedOrigin: string;
  returnTo?: string;
}

/** The URL the browser is sent back to, with the connector id added to its query. */
export function returnUrl(returnTo: string, connectorId: string): string {
  const url = new URL(returnTo);
  url.searchParams.set('connector_id', connectorId);
  return url.toString();
}

/** After connecting: the id for people, and data attributes that connect.js posts to the opener (then redirects). */
export function connectedPage(input: ConnectedPageInput): string {
  const back = input.returnTo === undefined ? undefined : returnUrl(input.returnTo, input.connectorId);
  const data = [
    `data-connector-id="${e(input.connectorId)}"`,
    `data-connector-type="${e(input.connectorType)}"`,
    `data-workspace-name="${e(input.workspaceName)}"`,
    `data-origin="${e(input.allowedOrigin)}"`,
    ...(back === undefined ? [] : [`data-return-to="${e(back)}"`]),
  ];
  return layout(
    `${input.displayName} connected`,
    `<h1>${e(input.displayName)} connected</h1>
<div id="switchyard-result" role="status" ${data.join(' ')}>
<p>“${e(input.connectorName)}” is connected.<span id="close-hint"> You can close this window.</span></p>
<p>Connector id: <code id="connector-id">${e(input.connectorId)}</code></p>
</div>
${back === undefined ? '' : `<p><a href="${e(back)}">Return to the application</a></p>`}`,
  );
}

export function problemPage(title: string, message: string, retryHref?: string): string {
  return layout(
    title,
    `<h1>${e(title)}</h1>\n<div class="error" role="alert"><p>${e(message)}</p></div>${retryHref === undefined ? '' : `\n<p><a href="${e(retryHref)}">Start again</a></p>`}`,
  );
}

/** Served as /connect/assets/connect.js: reports a new connector to the window that opened the page, then goes back. */
export const CONNECT_SCRIPT = `'use strict';
(function () {
  var result = document.getElementById('switchyard-result');
  if (result) {
    var message = {
      type: 'switchyard:connector_created',
      connector_id: result.dataset.connectorId,
      connector_type: result.dataset.connectorType,
      workspace_name: result.dataset.workspaceName
    };
    var framed = window.parent !== window;
    var target = window.opener || (framed ? window.parent : null);
    // Inside the application's own frame there is no window of ours to close: the application takes the frame away.
    var hint = document.getElementById('close-hint');
    if (hint && framed && !window.opener) hint.hidden = true;
    if (target && result.dataset.origin) {
      try { target.postMessage(message, result.dataset.origin); } catch (ignored) { /* the opener went elsewhere */ }
    }
    if (result.dataset.returnTo) window.location.assign(result.dataset.returnTo);
    return;
  }
  var problem = document.getElementById('form-error');
  if (problem) problem.focus();
  // One post per click: the button waits for the answer (the service also answers a repeated form once).
  Array.prototype.forEach.call(document.querySelectorAll('form'), function (form) {
    form.addEventListener('submit', function () {
      var button = form.querySelector('button[type="submit"]');
      if (button) { button.disabled = true; button.setAttribute('aria-busy', 'true'); }
    });
  });
  // A page the back button restores from memory keeps what was typed: secrets are emptied, buttons usable again.
  window.addEventListener('pageshow', function (event) {
    if (!event.persisted) return;
    Array.prototype.forEach.call(document.querySelectorAll('input[type="password"]'), function (input) { input.value = ''; });
    Array.prototype.forEach.call(document.querySelectorAll('button[type="submit"]'), function (button) {
      button.disabled = false;
      button.removeAttribute('aria-busy');
    });
  });
})();
`;

export const CONNECT_STYLES = `:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
body { margin: 0; }
main { max-width: 36rem; margin: 2rem auto; padding: 0 1rem; }
h1 img, .templates img { vertical-align: middle; }
section { border: 1px solid #8884; border-radius: 8px; padding: 1rem; margin: 1rem 0; }
fieldset { border: 0; padding: 0; margin: 0; }
legend { font-weight: 600; margin-bottom: .5rem; }
.field { margin: .75rem 0; }
label { display: block; font-weight: 600; }
.help { margin: .1rem 0 .3rem; font-size: .9rem; opacity: .85; }
input, select { width: 100%; box-sizing: border-box; padding: .5rem; font: inherit; }
button { padding: .6rem 1.2rem; font: inherit; cursor: pointer; }
:focus-visible { outline: 3px solid #3b82f6; outline-offset: 2px; }
.error { border-left: 4px solid #dc2626; padding: .25rem .75rem; margin: .5rem 0; }
.templates { list-style: none; padding: 0; }
.templates li { margin: .5rem 0; }
`;
