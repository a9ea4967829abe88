/**
 * The connect flow: POST /api/v1/account/applications/widget-token (an application asks for a short-lived
 * token bound to one workspace) and the hosted connect page it opens, GET /connect?token=..., where an
 * end user connects their own account: typed credentials, or OAuth consent at the vendor with the
 * organization's own OAuth app. Connectors are created by the same function as
 * POST /api/v1/integrations/connectors. The page routes answer HTML (errors too) under a strict
 * Content-Security-Policy; they are authenticated by the widget token, never by a cookie.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { templateReferences } from '../../runtime/templates.js';
import { type AuthOption, type ConnectorDefinition, type JsonObject } from '../../runtime/index.js';
import { RequestValidationError, SwitchyardError } from '../errors.js';
import { issueWidgetToken, TokenError, verifyWidgetToken, type WidgetTokenClaims } from '../security/tokens.js';
import { credentialsSchema, replicationConfigSchema } from '../services/catalog.js';
import { createConnector, getConnector } from '../services/connectors.js';
import { recordSubmission, releaseSubmission, takeSubmissionTurn } from '../services/connect-submissions.js';
import { consentOptions, findOAuthApp, type ConsentOption } from '../services/oauth-apps.js';
import { completeConsent, ConsentError, consentFrameOrigin, startConsent } from '../services/oauth-flow.js';
import { requireActiveClient } from '../services/organizations.js';
import { listTemplateRows, presetConfig, templateDefinition, type TemplateRow } from '../services/source-templates.js';
import { ensureWorkspace } from '../services/workspaces.js';
import { CONNECT_SCRIPT, CONNECT_STYLES, connectedPage, problemPage, templateListPage, templatePage, type FormError, type OptionForm } from './connect-page.js';
import { errorResponses, uuidSchema } from './shared-schemas.js';
import { publicBase } from './public-base.js';
import { keepOutOfCaches } from './no-store.js';
import { workspaceNameSchema } from './workspaces.js';
import { UUID_PATTERN } from '../uuid.js';
import { webOrigin } from '../web-origin.js';
import type { ConnectorView } from '../api-shapes.js';

/** How long a second post of a form waits for the first, whose vendor check may take that long. */
const SUBMISSION_WAIT_MS = 30_000;

/** OpenAPI description of a connect page route: public (the widget token authenticates it), answering HTML. */
function pageSchema(summary: string, description: string, statuses: Record<number, string>) {
  const html = { 'text/html': { schema: { type: 'string' } } };
  return {
    summary,
    description,
    tags: ['Connect page'],
    security: [],
    response: Object.fromEntries(
      Object.entries(statuses).map(([status, text]) => [status, status === '303' ? { description: text, type: 'null' } : { description: text, content: html }]),
    ),
  };
}

interface WidgetTokenBody {
  workspace_name: string;
  allowed_origin: string;
  region_id?: string | null;
  selected_source_template_tags?: string[];
  selected_source_template_tags_mode?: 'all' | 'any';
  selected_connection_template_tags?: string[];
  selected_connection_template_tags_mode?: 'all' | 'any';
}

type Form = Record<string, string>;

/** allowed_origin must be exactly an origin (scheme://host[:port]); its normalized form. */
function checkOrigin(raw: string): string {
  const origin = webOrigin(raw);
  if (origin === undefined) {
    const message = 'allowed_origin must be an origin such as https://app.example.com (scheme, host and optional port; no path)';
    throw new RequestValidationError(`Invalid request body: ${message}.`, [{ field: 'allowed_origin', rule: 'origin', message }]);
  }
  return origin;
}

/** The connect page's path for a link's token, with the page's other query parameters. */
function connectHref(token: string, extra: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams({ token });
  for (const [name, value] of Object.entries(extra)) if (value !== undefined) params.set(name, value);
  return `/connect?${params.toString()}`;
}

/** Origins a consent form may lead to: Chrome applies form-action to the redirect after the post. */
function consentOrigins(ctx: FastifyInstance['ctx'], definition: ConnectorDefinition, option: ConsentOption, preset: Record<string, string>): string[] {
  const override = ctx.config.oauthServerUrls?.[definition.connectorType];
  if (override !== undefined) return [new URL(override).origin];
  let candidates: Array<Record<string, string>> = [{}];
  for (const ref of templateReferences(option.authorizationCode.authorizationUrl)) {
    if (ref.source !== 'config') continue;
    const field = definition.config[ref.name];
    const values = preset[ref.name] !== undefined ? [preset[ref.name] as string] : field?.enum;
    if (values === undefined) return ['https:'];
    candidates = candidates.flatMap((candidate) => values.map((value) => ({ ...candidate, [ref.name]: value })));
  }
  return [
    ...new Set(
      candidates.map(
        (config) =>
          new URL(option.authorizationCode.authorizationUrl.replace(/\{\{\s*config\.([A-Za-z0-9_]+)\s*\}\}/g, (_, name: string) => config[name] ?? '')).origin,
      ),
    ),
  ];
}

function securityHeaders(reply: FastifyReply, options: { frameAncestor?: string; formTargets?: string[] } = {}): FastifyReply {
  const formAction = ["'self'", ...(options.formTargets ?? [])].join(' ');
  const frameAncestors = ["'self'", ...(options.frameAncestor ? [options.frameAncestor] : [])].join(' ');
  return reply
    .header(
      'content-security-policy',
      `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; form-action ${formAction}; frame-ancestors ${frameAncestors}; base-uri 'none'`,
    )
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8');
}

/**
 * A problem page. `frameAncestor` is the link's allowed_origin, known once the token's signature is verified
 * (an expired link included): the page then shows in the application's frame as the form did.
 */
function sendProblem(
  reply: FastifyReply,
  status: number,
  title: string,
  message: string,
  options: { retryHref?: string; frameAncestor?: string } = {},
): FastifyReply {
  return securityHeaders(reply, { ...(options.frameAncestor !== undefined && { frameAncestor: options.frameAncestor }) })
    .status(status)
    .send(problemPage(title, message, options.retryHref));
}

/** The allowed_origin an expired widget token carried (its signature checked), if it is one. */
function expiredLinkOrigin(error: TokenError): string | undefined {
  const origin = error.expiredClaims?.origin;
  return typeof origin === 'string' ? webOrigin(origin) : undefined;
}

/** The widget token of a page request, or undefined after answering with a problem page. */
async function widgetClaims(request: FastifyRequest, reply: FastifyReply, token: string | undefined): Promise<WidgetTokenClaims | undefined> {
  if (!token) {
    sendProblem(reply, 401, 'Link incomplete', 'This page needs the connect link the application gave you (it carries a token).');
    return undefined;
  }
  try {
    return await verifyWidgetToken(token, request.server.ctx.keyring.derive('token-signing'));
  } catch (error) {
    if (!(error instanceof TokenError)) throw error;
    const frameAncestor = error.expired ? expiredLinkOrigin(error) : undefined;
    sendProblem(reply, 401, error.expired ? 'Link expired' : 'Link not valid', error.message, {
      ...(frameAncestor !== undefined && { frameAncestor }),
    });
    return undefined;
  }
}

/** redirect_uri, when given, must be on CONNECT_REDIRECT_URIS; undefined after answering with a problem page. */
function checkedReturnTo(request: FastifyRequest, reply: FastifyReply, raw: string | undefined, frameAncestor: string): { value?: string } | undefined {
  if (raw === undefined || raw === '') return {};
  let normalized: string | undefined;
  try {
    normalized = new URL(raw).toString();
  } catch {
    normalized = undefined;
  }
  const allowed = request.server.ctx.config.connectRedirectUris ?? [];
  if (normalized === undefined || !allowed.includes(normalized)) {
    sendProblem(
      reply,
      400,
      'Return address not allowed',
      'The redirect_uri of this link is not one this service may send you back to (the operator lists them in CONNECT_REDIRECT_URIS).',
      { frameAncestor },
    );
    return undefined;
  }
  return { value: normalized };
}

interface PageState {
  claims: WidgetTokenClaims;
  token: string;
  returnTo?: string;
}

/** The options an end user can use: typed credentials, and OAuth consent where the organization has its app. */
async function usableOptions(
  ctx: FastifyInstance['ctx'],
  claims: WidgetTokenClaims,
  definition: ConnectorDefinition,
): Promise<Array<{ option: AuthOption; form: OptionForm }>> {
  const hasApp = consentOptions(definition).length > 0 && (await findOAuthApp(ctx, claims.organizationId, definition.connectorType)) !== undefined;
  const usable: Array<{ option: AuthOption; form: OptionForm }> = [];
  for (const option of definition.auth) {
    const base = { title: option.optionTitle, ...(option.description !== undefined && { description: option.description }) };
    if (option.authorizationCode !== undefined && hasApp) {
      // With the organization's OAuth app, an option the vendor's consent fills is offered as consent.
      usable.push({ option, form: { ...base, kind: 'consent' } });
    } else if (option.type === 'oauth2_refresh') {
      // A refresh token is not something an end user holds: without the app the option is not offered.
      continue;
    } else {
      usable.push({ option, form: { ...base, kind: 'credentials', credentialsSchema: credentialsSchema(option, false) } });
    }
  }
  return usable;
}

/** The connector's settings schema without the template's presets. */
function userSettingsSchema(definition: ConnectorDefinition, preset: Record<string, string>): JsonObject {
  const schema = replicationConfigSchema(definition);
  const properties = { ...(schema.properties as JsonObject) };
  for (const name of Object.keys(preset)) delete properties[name];
  return { ...schema, properties, required: (schema.required as string[]).filter((name) => !(name in preset)) };
}

async function renderTemplatePage(
  request: FastifyRequest,
  reply: FastifyReply,
  state: PageState,
  template: TemplateRow,
  status = 200,
  failure?: { error: FormError; form: Form },
): Promise<FastifyReply> {
  const ctx = request.server.ctx;
  const definition = templateDefinition(template);
  const preset = presetConfig(template);
  const usable = await usableOptions(ctx, state.claims, definition);
  const formTargets = usable.flatMap(({ option, form }) => (form.kind === 'consent' ? consentOrigins(ctx, definition, option as ConsentOption, preset) : []));
  const settingsSchema = userSettingsSchema(definition, preset);
  let values;
  if (failure) {
    const option = usable.find(({ option: o }) => o.optionTitle === failure.error.optionTitle)?.option;
    const secret = new Set(
      option
        ? Object.entries(option.fields)
            .filter(([, field]) => field.secret)
            .map(([name]) => name)
        : [],
    );
    const pick = (prefix: string, skip: Set<string>) =>
      Object.fromEntries(
        Object.entries(failure.form)
          .filter(([key]) => key.startsWith(prefix) && !skip.has(key.slice(prefix.length)))
          .map(([key, value]) => [key.slice(prefix.length), value]),
      );
    values = { name: failure.form.name ?? template.name, settings: pick('settings.', new Set()), credentials: pick('credentials.', secret) };
  }
  const html = templatePage({
    token: state.token,
    ...(state.returnTo !== undefined && { returnTo: state.returnTo }),
    templateId: template.id,
    displayName: definition.displayName,
    icon: definition.iconUrl,
    connectorName: template.name,
    settingsSchema,
    options: usable.map(({ form }) => form),
    ...(failure && { error: failure.error, values }),
  });
  return securityHeaders(reply, { frameAncestor: state.claims.allowedOrigin, formTargets }).status(status).send(html);
}

/**
 * The claim key of a posted form: its random submission id with every value it carries, digested (the id
 * keeps it unguessable, the values tell a repeated post from a changed one; no value can be read back).
 */
function submissionKey(form: Form): string {
  const entries = Object.entries(form).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const hex = createHash('sha256').update(JSON.stringify(entries)).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** The page that reports a new connector (to the opener, and back to redirect_uri). */
function sendConnected(reply: FastifyReply, state: PageState, definition: ConnectorDefinition, connector: ConnectorView): FastifyReply {
  return securityHeaders(reply, { frameAncestor: state.claims.allowedOrigin }).send(
    connectedPage({
      connectorId: connector.id,
      connectorType: connector.connector_type,
      connectorName: connector.name,
      displayName: definition.displayName,
      workspaceName: connector.workspace_name,
      allowedOrigin: state.claims.allowedOrigin,
      ...(state.returnTo !== undefined && { returnTo: state.returnTo }),
    }),
  );
}

function prefixed(form: Form, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(form)) {
    if (key.startsWith(prefix) && value !== '') out[key.slice(prefix.length)] = value;
  }
  return out;
}

function formError(optionTitle: string, error: SwitchyardError): FormError {
  // The API's replication_config.<name> is the form's settings.<name>.
  const fields = error.issues.map((issue) => issue.field.replace(/^replication_config(?=\.|$)/, 'settings'));
  return { optionTitle, message: error.message, issues: error.issues.map((issue) => issue.message), fields };
}

async function workspaceName(ctx: FastifyInstance['ctx'], claims: WidgetTokenClaims): Promise<string | undefined> {
  const row = await ctx.store.db
    .selectFrom('workspaces')
    .select('name')
    .where('id', '=', claims.workspaceId)
    .where('organization_id', '=', claims.organizationId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return row?.name;
}

export default async function connectRoutes(app: FastifyInstance): Promise<void> {
  // The page's forms post application/x-www-form-urlencoded (only the routes of this plugin accept it).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  app.post<{ Body: WidgetTokenBody }>(
    '/api/v1/account/applications/widget-token',
    {
      schema: {
        summary: 'Create a widget token: a short-lived link to the connect page for one workspace',
        description:
          'The token (valid CONNECT_TOKEN_TTL_SECONDS, default 15 minutes) opens GET /connect?token=... for the workspace named workspace_name (created if the organization has none of that name). allowed_origin may embed the page and receives its postMessage. selected_source_template_tags filters the offered templates. region_id and the connection template fields are accepted and ignored (one region; no connection templates).',
        tags: ['Connect'],
        body: {
          type: 'object',
          required: ['workspace_name', 'allowed_origin'],
          properties: {
            workspace_name: workspaceNameSchema,
            allowed_origin: { type: 'string', minLength: 1, maxLength: 500 },
            region_id: { type: ['string', 'null'], pattern: uuidSchema.pattern },
            selected_source_template_tags: { type: 'array', items: { type: 'string', maxLength: 100 }, maxItems: 50 },
            selected_source_template_tags_mode: { type: 'string', enum: ['all', 'any'] },
            selected_connection_template_tags: { type: 'array', items: { type: 'string' } },
            selected_connection_template_tags_mode: { type: 'string', enum: ['all', 'any'] },
          },
        },
        response: {
          200: {
            type: 'object',
            required: ['token', 'connect_url', 'expires_in'],
            properties: {
              token: { type: 'string' },
              connect_url: { type: 'string', description: 'The connect page for this token (open it in a browser window or frame).' },
              expires_in: { type: 'integer' },
            },
          },
          ...errorResponses(400, 401, 403, 422),
        },
      },
    },
    async (request, reply) => {
      keepOutOfCaches(reply);
      const body = request.body;
      const allowedOrigin = checkOrigin(body.allowed_origin);
      await requireActiveClient(app.ctx.store.db, request.principal.clientId, request.principal.organizationId);
      const workspace = await ensureWorkspace(app.ctx.store.db, request.principal.organizationId, body.workspace_name);
      const ttl = app.ctx.config.connectTokenTtlSeconds ?? 900;
      const token = await issueWidgetToken(
        {
          organizationId: request.principal.organizationId,
          workspaceId: workspace.id,
          workspaceName: workspace.name,
          allowedOrigin,
          tags: body.selected_source_template_tags ?? [],
          tagsMode: body.selected_source_template_tags_mode ?? 'any',
        },
        app.ctx.keyring.derive('token-signing'),
        ttl,
      );
      return { token, connect_url: `${publicBase(request)}${connectHref(token)}`, expires_in: ttl };
    },
  );

  app.get('/connect/assets/connect.js', { config: { public: true }, schema: { hide: true } }, async (_request, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', 'public, max-age=300')
      .send(CONNECT_SCRIPT),
  );
  app.get('/connect/assets/connect.css', { config: { public: true }, schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('x-content-type-options', 'nosniff').header('cache-control', 'public, max-age=300').send(CONNECT_STYLES),
  );

  app.get<{ Querystring: Record<string, string> }>(
    '/connect',
    {
      config: { public: true },
      schema: pageSchema(
        'The hosted connect page (HTML) for a widget token',
        'Query: token (required), template or connector_type (open one template), redirect_uri (listed in CONNECT_REDIRECT_URIS). Lists the enabled connectors and renders each credential option; see docs/api-reference.md, "Connect flow".',
        {
          200: 'The page.',
          400: 'A redirect_uri that is not allowed.',
          401: 'A missing, invalid or expired token.',
          404: 'A template or connector type not enabled for the token.',
        },
      ),
    },
    async (request, reply) => {
      const { token, template: templateId, connector_type: connectorType, redirect_uri: redirectUri } = request.query;
      const claims = await widgetClaims(request, reply, token);
      if (!claims || token === undefined) return reply;
      const returnTo = checkedReturnTo(request, reply, redirectUri, claims.allowedOrigin);
      if (!returnTo) return reply;
      const state: PageState = { claims, token, ...(returnTo.value !== undefined && { returnTo: returnTo.value }) };
      const templates = await listTemplateRows(app.ctx, claims.organizationId, claims.tags, claims.tagsMode);
      let chosen: TemplateRow | undefined;
      if (templateId !== undefined) {
        chosen = templates.find((row) => row.id === templateId.toLowerCase());
        if (!chosen)
          return sendProblem(reply, 404, 'Not available', 'This connector is not enabled for this link.', {
            retryHref: connectHref(token, { redirect_uri: state.returnTo }),
            frameAncestor: claims.allowedOrigin,
          });
      } else if (connectorType !== undefined) {
        chosen = templates.find((row) => row.connector_type === connectorType.toLowerCase());
        if (!chosen)
          return sendProblem(reply, 404, 'Not available', `${connectorType} is not enabled for this link.`, {
            retryHref: connectHref(token, { redirect_uri: state.returnTo }),
            frameAncestor: claims.allowedOrigin,
          });
      } else if (templates.length === 1) {
        chosen = templates[0];
      }
      if (chosen) return renderTemplatePage(request, reply, state, chosen);
      const links = templates.map((row) => {
        const definition = templateDefinition(row);
        return { name: row.name, icon: definition.iconUrl, href: connectHref(token, { template: row.id, redirect_uri: state.returnTo }) };
      });
      return securityHeaders(reply, { frameAncestor: claims.allowedOrigin }).send(templateListPage(claims.workspaceName, links));
    },
  );

  /** Reads token, template and redirect_uri of a posted form; undefined after answering with a problem page. */
  async function formContext(
    request: FastifyRequest<{ Body: Form }>,
    reply: FastifyReply,
  ): Promise<{ state: PageState; template: TemplateRow; form: Form } | undefined> {
    const form = request.body && typeof request.body === 'object' ? request.body : {};
    const claims = await widgetClaims(request, reply, form.token);
    if (!claims || form.token === undefined) return undefined;
    const returnTo = checkedReturnTo(request, reply, form.redirect_uri, claims.allowedOrigin);
    if (!returnTo) return undefined;
    const state: PageState = { claims, token: form.token, ...(returnTo.value !== undefined && { returnTo: returnTo.value }) };
    const templates = await listTemplateRows(app.ctx, claims.organizationId, claims.tags, claims.tagsMode);
    const template = templates.find((row) => row.id === (form.template ?? '').toLowerCase());
    if (!template) {
      sendProblem(reply, 404, 'Not available', 'This connector is not enabled for this link.', {
        retryHref: connectHref(form.token),
        frameAncestor: claims.allowedOrigin,
      });
      return undefined;
    }
    return { state, template, form };
  }

  app.post<{ Body: Form }>(
    '/connect/connectors',
    {
      config: { public: true },
      schema: pageSchema(
        'Connect page form: create a connector from typed credentials',
        "application/x-www-form-urlencoded: token, template, option_title, name, credentials.<field>, settings.<field>, redirect_uri, submission (the form's id: a second post of one form answers with the connector the first created). Creates the connector as POST /api/v1/integrations/connectors does; errors re-render the form.",
        {
          200: 'Connected: the page reports the connector id to the opener.',
          400: 'Credentials or settings refused (the form again, with the reasons).',
          401: 'A missing, invalid or expired token.',
          404: 'A template not enabled for the token.',
          409: 'The same form (its submission id) was sent before and is still being connected; the earlier post, once done, answers for both.',
          422: 'Credentials or settings refused (the form again, with the reasons).',
        },
      ),
    },
    async (request, reply) => {
      const context = await formContext(request, reply);
      if (!context) return reply;
      const { state, template, form } = context;
      const definition = templateDefinition(template);
      const optionTitle = form.option_title ?? '';
      const option = definition.auth.find((candidate) => candidate.optionTitle === optionTitle && candidate.type !== 'oauth2_refresh');
      if (!option)
        return sendProblem(reply, 400, 'Not available', `${definition.displayName} has no option "${optionTitle}" to fill in here.`, {
          retryHref: connectHref(state.token, { template: template.id }),
          frameAncestor: state.claims.allowedOrigin,
        });
      const name = (form.name ?? '').trim() || template.name;
      const workspace = await workspaceName(app.ctx, state.claims);
      if (workspace === undefined)
        return sendProblem(reply, 410, 'Workspace gone', 'The workspace this link was made for no longer exists.', {
          frameAncestor: state.claims.allowedOrigin,
        });
      const db = app.ctx.store.db;
      // A form sent twice with the same values (a double click, a reload of the answer, a form the back button
      // restored) creates once; sent again with other values (another account), it is another submission.
      const submission = UUID_PATTERN.test(form.submission ?? '') ? submissionKey(form) : undefined;
      if (submission !== undefined) {
        const turn = await takeSubmissionTurn(db, submission, state.claims.organizationId, SUBMISSION_WAIT_MS);
        const freshForm = connectHref(state.token, { template: template.id, redirect_uri: state.returnTo });
        if (turn.kind === 'created') {
          const created = await getConnector(app.ctx, state.claims.organizationId, turn.connectorId).catch((error: unknown) => {
            if (error instanceof SwitchyardError && error.status < 500) return undefined;
            throw error;
          });
          if (created) return sendConnected(reply, state, definition, created);
          return sendProblem(reply, 410, 'Connector gone', `The ${definition.displayName} connector this form created no longer exists.`, {
            retryHref: freshForm,
            frameAncestor: state.claims.allowedOrigin,
          });
        }
        if (turn.kind === 'pending')
          return sendProblem(
            reply,
            409,
            'Still connecting',
            `This form was already sent and ${definition.displayName} is still being connected. Reload this page in a moment.`,
            { retryHref: freshForm, frameAncestor: state.claims.allowedOrigin },
          );
      }
      let connector: ConnectorView;
      try {
        connector = await createConnector(
          app.ctx,
          state.claims.organizationId,
          {
            workspace_name: workspace,
            connector_type: definition.connectorType,
            name: name.slice(0, 200),
            credentials: { ...prefixed(form, 'credentials.'), option_title: option.optionTitle },
            replication_config: { ...prefixed(form, 'settings.'), ...presetConfig(template) },
          },
          { check: true },
        );
      } catch (error) {
        if (submission !== undefined) {
          await releaseSubmission(db, submission).catch((releaseError: unknown) =>
            request.log.warn(
              { err: releaseError instanceof Error ? releaseError.message : String(releaseError) },
              'could not release a connect form submission',
            ),
          );
        }
        if (!(error instanceof SwitchyardError) || error.status >= 500) throw error;
        return renderTemplatePage(request, reply, state, template, error.status, { error: formError(option.optionTitle, error), form });
      }
      // The connector exists whatever happens next: a claim left without it is taken over only once abandoned.
      if (submission !== undefined) {
        await recordSubmission(db, submission, connector.id).catch((recordError: unknown) =>
          request.log.warn({ err: recordError instanceof Error ? recordError.message : String(recordError) }, 'could not record a connect form submission'),
        );
      }
      return sendConnected(reply, state, definition, connector);
    },
  );

  app.post<{ Body: Form }>(
    '/connect/oauth/start',
    {
      config: { public: true },
      schema: pageSchema(
        'Connect page form: start the OAuth consent at the vendor',
        "application/x-www-form-urlencoded: token, template, option_title, name, settings.<field>, redirect_uri. Redirects (303) to the vendor's consent page with the organization's OAuth app, PKCE where supported and a signed single-use state.",
        {
          303: "To the vendor's consent page.",
          400: 'The consent cannot start (e.g. no OAuth app configured): the form again, with the reason.',
          401: 'A missing, invalid or expired token.',
          404: 'A template not enabled for the token.',
        },
      ),
    },
    async (request, reply) => {
      const context = await formContext(request, reply);
      if (!context) return reply;
      const { state, template, form } = context;
      const optionTitle = form.option_title ?? '';
      try {
        const url = await startConsent(
          app.ctx,
          {
            widget: state.claims,
            templateId: template.id,
            optionTitle,
            connectorName: ((form.name ?? '').trim() || template.name).slice(0, 200),
            settings: prefixed(form, 'settings.'),
            callbackUrl: `${publicBase(request)}/connect/oauth/callback`,
            ...(state.returnTo !== undefined && { returnTo: state.returnTo }),
          },
          state.token,
        );
        return reply.header('referrer-policy', 'no-referrer').header('cache-control', 'no-store').redirect(url, 303);
      } catch (error) {
        if (!(error instanceof SwitchyardError) || error.status >= 500) throw error;
        return renderTemplatePage(request, reply, state, template, error.status, { error: formError(optionTitle, error), form });
      }
    },
  );

  app.get<{ Querystring: Record<string, string> }>(
    '/connect/oauth/callback',
    {
      config: { public: true },
      schema: pageSchema(
        'OAuth redirect URI of the connect page (register <PUBLIC_URL>/connect/oauth/callback with the vendor)',
        'Checks the signed state, spends the consent once, exchanges the code and creates the connector.',
        {
          200: 'Connected: the page reports the connector id to the opener.',
          400: 'A replayed, altered or expired state, a refused consent or a failed code exchange.',
        },
      ),
    },
    async (request, reply) => {
      try {
        const result = await completeConsent(app.ctx, request.query);
        const definition = templateDefinition({ id: result.connector.id, definition_id: result.connector.definition_id });
        return securityHeaders(reply, { frameAncestor: result.allowedOrigin }).send(
          connectedPage({
            connectorId: result.connector.id,
            connectorType: result.connector.connector_type,
            connectorName: result.connector.name,
            displayName: definition.displayName,
            workspaceName: result.connector.workspace_name,
            allowedOrigin: result.allowedOrigin,
            ...(result.returnTo !== undefined && { returnTo: result.returnTo }),
          }),
        );
      } catch (error) {
        if (!(error instanceof SwitchyardError) || error.status >= 500) throw error;
        // A consent this callback spent shows its answer in the application's frame. The page never carries the
        // link's token: whoever holds a state (the vendor's logs, the browser's history) could read it there.
        const spentHere = !(error instanceof ConsentError) || (error.code !== 'invalid_state' && error.code !== 'expired_state');
        const frameAncestor = spentHere ? await consentFrameOrigin(app.ctx, request.query.state).catch(() => undefined) : undefined;
        return sendProblem(reply, error.status, 'Not connected', error.message, { ...(frameAncestor !== undefined && { frameAncestor }) });
      }
    },
  );
}
