/**
 * The connect page in a real headless browser (Debian's chromium driven by puppeteer-core): an
 * application page opens it in a window; a person connects Harvest with a personal access token and
 * Salesforce through OAuth consent at a fake authorization server with the organization's own OAuth app;
 * the application receives each connector id by postMessage, and both connectors then execute against a
 * fake vendor API. Screenshots of every step go to test-artifacts/connect/ (kept by CI, ignored by git).
 *
 * Needs chromium (CHROMIUM_PATH, else /usr/bin/chromium). Without it the suite is skipped, unless
 * SWITCHYARD_BROWSER_TESTS=required (as .ci/run sets), where a missing browser fails.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectorModules } from '../../runtime/index.js';
import {
  HARVEST_USERS,
  SALESFORCE_CONTACTS,
  startFakeAuthorizationServer,
  startFakeVendorApi,
  type FakeAuthorizationServer,
  type FakeVendorApi,
} from '../support/fake-oauth.js';
import { createTenant, startTestService, type Tenant, type TestService } from '../support/service.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const required = process.env.SWITCHYARD_BROWSER_TESTS === 'required';
const available = existsSync(CHROMIUM);
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/connect/', import.meta.url));
const CLIENT_ID = '3MVG9-browser-consumer-key';
const CLIENT_SECRET = 'browser-consumer-secret-S3CRET-4411';
const HARVEST_TOKEN = 'harvest-pat-S3CRET-90817';
const HARVEST_ACCOUNT = '5551234';

/** The application that embeds the flow: it opens the connect page and records what it is told. */
async function startApplication(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html lang="en"><head><title>Example app</title></head><body>
<main><h1>Example app</h1><ul id="log"></ul></main>
<script>
window.messages = [];
window.addEventListener('message', function (event) {
  window.messages.push({ origin: event.origin, data: event.data });
  var item = document.createElement('li');
  item.textContent = 'connected ' + event.data.connector_type + ': ' + event.data.connector_id;
  document.getElementById('log').appendChild(item);
});
window.openConnect = function (url) { window.connectWindow = window.open(url, 'switchyard-connect', 'width=600,height=800'); };
</script></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe.skipIf(!available && !required)('connect page in a headless browser', () => {
  let browser: Browser;
  let auth: FakeAuthorizationServer;
  let vendor: FakeVendorApi;
  let application: { url: string; close(): Promise<void> };
  let service: TestService;
  let tenant: Tenant;
  let appPage: Page;
  let connectUrl: string;
  const cspViolations: string[] = [];

  beforeAll(async () => {
    if (!available) throw new Error(`No chromium at ${CHROMIUM}: install it (apt-get install -y chromium) or set CHROMIUM_PATH.`);
    mkdirSync(ARTIFACTS, { recursive: true });
    auth = await startFakeAuthorizationServer({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, instanceUrl: 'https://acme.my.salesforce.com' });
    vendor = await startFakeVendorApi();
    vendor.accepted.harvest.add(HARVEST_TOKEN);
    vendor.accepted.salesforce.add('sf-access-1');
    application = await startApplication();
    service = await startTestService('pglite', {
      oauthServerUrls: { salesforce: auth.url },
      upstreamBaseUrls: { harvest: `${vendor.url}/harvest`, salesforce: `${vendor.url}/salesforce` },
    });
    tenant = await createTenant(service);
    await tenant.api.put('/api/v1/oauth/credentials', { connector_type: 'salesforce', configuration: { client_id: CLIENT_ID, client_secret: CLIENT_SECRET } });
    await tenant.api.post('/api/v1/integrations/templates/sources', {
      actor_definition_id: connectorModules.harvest!.definition.definitionId,
      partial_default_config: {},
    });
    await tenant.api.post('/api/v1/integrations/templates/sources', {
      actor_definition_id: connectorModules.salesforce!.definition.definitionId,
      partial_default_config: { login_environment: 'login' },
    });
    const widget = await tenant.api.post<{ connect_url: string }>('/api/v1/account/applications/widget-token', {
      workspace_name: 'customer-9',
      allowed_origin: application.url,
    });
    connectUrl = widget.body.connect_url;
    browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    appPage = await browser.newPage();
    await appPage.goto(application.url);
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await service?.close();
    await application?.close();
    await auth?.close();
    await vendor?.close();
  });

  const connectWindows: Page[] = [];

  // The application opens every connect window under one name, so a window a failed test left open would
  // take the next one's page instead of a new window: each test closes what it opened.
  afterEach(async () => {
    for (const page of connectWindows.splice(0)) if (!page.isClosed()) await page.close();
    // Until the application sees its window closed, the name may still belong to it, and a window.open under that
    // name would reuse the closing window: no popup (the likely cause of one clean-clone run's 15 s wait for it).
    await appPage.waitForFunction(
      () => {
        const opened = (window as unknown as { connectWindow?: { closed: boolean } }).connectWindow;
        return opened === undefined || opened.closed;
      },
      { polling: 100, timeout: 15_000 },
    );
  });

  async function openConnectWindow(): Promise<Page> {
    const popup = new Promise<Page | null>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the connect window did not open within 15 s')), 15_000);
      appPage.once('popup', (page) => {
        clearTimeout(timer);
        resolve(page);
      });
    });
    await appPage.evaluate((url) => (window as unknown as { openConnect(u: string): void }).openConnect(url), connectUrl);
    const page = await popup;
    if (!page) throw new Error('the connect window did not open');
    connectWindows.push(page);
    // The size window.open asks for; headless chromium sometimes lays a popup out 0 wide when the machine
    // is loaded.
    await page.setViewport({ width: 600, height: 800 });
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    await page.waitForSelector('h1');
    return page;
  }

  /**
   * Screenshots are artifacts for people reading a CI run, not what a test asserts: chromium refuses to
   * capture a window it has not laid out yet ("Cannot take screenshot with 0 width"), which says nothing
   * about the page, so a shot that cannot be taken is reported and the test goes on.
   */
  async function shot(page: Page, name: string): Promise<void> {
    try {
      await page.bringToFront();
      await page.waitForFunction(() => window.innerWidth > 0 && document.documentElement.scrollWidth > 0, { polling: 100, timeout: 5_000 });
      await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
    } catch (error) {
      console.warn(`screenshot ${name} not taken: ${(error as Error).message}`);
    }
  }

  /** Every visible form control has a label, and the page passes its own accessibility basics. */
  async function expectLabelled(page: Page): Promise<void> {
    const unlabelled = await page.$$eval('input:not([type=hidden]), select', (controls) =>
      controls.filter((control) => (control as HTMLInputElement).labels?.length === 0).map((control) => control.getAttribute('name')),
    );
    expect(unlabelled).toEqual([]);
    expect(await page.$eval('html', (html) => html.getAttribute('lang'))).toBe('en');
  }

  async function messagesReceived(count: number): Promise<Array<{ origin: string; data: Record<string, string> }>> {
    // Polled on a timer: the application's window is behind the connect window, where animation frames stop.
    await appPage.waitForFunction((n) => (window as unknown as { messages: unknown[] }).messages.length >= n, { polling: 100, timeout: 15_000 }, count);
    return appPage.evaluate(() => (window as unknown as { messages: Array<{ origin: string; data: Record<string, string> }> }).messages);
  }

  it('connects Harvest with a personal access token typed into a password field, then the connector executes', async () => {
    const page = await openConnectWindow();
    await shot(page, '01-templates');
    expect(await page.$$eval('.templates a', (links) => links.map((link) => link.textContent?.trim()))).toEqual(['Harvest', 'Salesforce']);
    await Promise.all([page.waitForNavigation(), page.click('.templates li:first-child a')]);
    await expectLabelled(page);
    // Harvest's OAuth option needs the organization's Harvest app, which it has not configured: only the token option shows.
    expect(await page.$$eval('section h2', (headings) => headings.map((h) => h.textContent))).toEqual(['Personal Access Token']);
    expect(await page.$eval('#option0-credential-api_token', (input) => (input as HTMLInputElement).type)).toBe('password');
    await page.type('#option0-credential-api_token', HARVEST_TOKEN);
    await page.type('#option0-credential-account_id', 'not-a-number');
    await shot(page, '02-harvest-form');
    // The browser enforces the schema's pattern before anything is sent.
    expect(await page.$eval('#option0-credential-account_id', (input) => (input as HTMLInputElement).validity.patternMismatch)).toBe(true);
    await page.$eval('#option0-credential-account_id', (input) => ((input as HTMLInputElement).value = ''));
    await page.type('#option0-credential-account_id', HARVEST_ACCOUNT);
    await Promise.all([page.waitForNavigation(), page.click('section form button[type=submit]')]);
    await page.waitForSelector('#connector-id');
    await shot(page, '03-harvest-connected');
    const connectorId = await page.$eval('#connector-id', (code) => code.textContent ?? '');
    expect(await page.content()).not.toContain(HARVEST_TOKEN);
    expect(await page.$eval('#close-hint', (hint) => (hint as HTMLElement).hidden)).toBe(false);

    const [message] = await messagesReceived(1);
    expect(message).toEqual({
      origin: service.url,
      data: { type: 'switchyard:connector_created', connector_id: connectorId, connector_type: 'harvest', workspace_name: 'customer-9' },
    });

    // Back to the form (chromium may restore it from memory, typed values and all): the secret is gone and the
    // button, disabled while the form was sent, works again.
    await Promise.all([page.waitForNavigation(), page.goBack()]);
    await page.waitForSelector('#option0-credential-api_token');
    expect(await page.$eval('#option0-credential-api_token', (input) => (input as HTMLInputElement).value)).toBe('');
    expect(await page.$eval('section form button[type=submit]', (button) => (button as HTMLButtonElement).disabled)).toBe(false);

    const executed = await tenant.api.post<{ result: unknown }>(`/api/v1/integrations/connectors/${connectorId}/execute`, {
      entity: 'users',
      action: 'list',
      params: {},
    });
    expect(executed.status, JSON.stringify(executed.body)).toBe(200);
    expect(executed.body.result).toEqual(HARVEST_USERS);
    expect(vendor.requests.at(-1)).toMatchObject({
      path: '/harvest/users',
      headers: expect.objectContaining({ authorization: `Bearer ${HARVEST_TOKEN}`, 'harvest-account-id': HARVEST_ACCOUNT }),
    });
  }, 60_000);

  it('connects inside a frame of the application page: the parent is told, and the page does not ask to close a window', async () => {
    const before = await appPage.evaluate(() => (window as unknown as { messages: unknown[] }).messages.length);
    await appPage.evaluate((url) => {
      const frame = document.createElement('iframe');
      frame.id = 'connect-frame';
      frame.title = 'Connect';
      frame.src = url;
      frame.width = '600';
      frame.height = '800';
      document.body.appendChild(frame);
    }, connectUrl);
    try {
      const frame = await (await appPage.waitForSelector('#connect-frame'))?.contentFrame();
      if (!frame) throw new Error('the connect frame did not load');
      await frame.waitForSelector('.templates a');
      await Promise.all([frame.waitForNavigation(), frame.click('.templates li:first-child a')]);
      await frame.type('#option0-credential-api_token', HARVEST_TOKEN);
      await frame.type('#option0-credential-account_id', HARVEST_ACCOUNT);
      await Promise.all([frame.waitForNavigation(), frame.click('section form button[type=submit]')]);
      await frame.waitForSelector('#connector-id');
      expect(await frame.$eval('#close-hint', (hint) => (hint as HTMLElement).hidden)).toBe(true);
      const connectorId = await frame.$eval('#connector-id', (code) => code.textContent ?? '');
      const messages = await messagesReceived(before + 1);
      expect(messages.at(-1)).toEqual({
        origin: service.url,
        data: { type: 'switchyard:connector_created', connector_id: connectorId, connector_type: 'harvest', workspace_name: 'customer-9' },
      });
    } finally {
      await appPage.evaluate(() => document.getElementById('connect-frame')?.remove());
    }
  }, 60_000);

  it("connects Salesforce through OAuth consent with the organization's own app, then the connector executes", async () => {
    const before = await appPage.evaluate(() => (window as unknown as { messages: unknown[] }).messages.length);
    const page = await openConnectWindow();
    await Promise.all([page.waitForNavigation(), page.click('.templates li:nth-child(2) a')]);
    await expectLabelled(page);
    await shot(page, '04-salesforce-consent-option');
    expect(await page.content()).not.toContain(CLIENT_ID);
    await Promise.all([page.waitForNavigation(), page.click('section form button[type=submit]')]);
    expect(page.url().startsWith(`${auth.url}/services/oauth2/authorize?`)).toBe(true);
    await shot(page, '05-salesforce-authorization-server');
    await Promise.all([page.waitForNavigation(), page.click('#allow')]);
    await page.waitForSelector('#connector-id');
    await shot(page, '06-salesforce-connected');
    const connectorId = await page.$eval('#connector-id', (code) => code.textContent ?? '');
    const html = await page.content();
    for (const secret of [CLIENT_SECRET, auth.refreshToken, 'sf-access-1']) expect(html).not.toContain(secret);

    const messages = await messagesReceived(before + 1);
    expect(messages.at(-1)).toEqual({
      origin: service.url,
      data: { type: 'switchyard:connector_created', connector_id: connectorId, connector_type: 'salesforce', workspace_name: 'customer-9' },
    });
    await shot(appPage, '07-application-notified');

    const executed = await tenant.api.post<{ result: unknown }>(`/api/v1/integrations/connectors/${connectorId}/execute`, {
      entity: 'contacts',
      action: 'list',
      params: {},
    });
    expect(executed.status, JSON.stringify(executed.body)).toBe(200);
    expect(executed.body.result).toEqual(SALESFORCE_CONTACTS);
    expect(vendor.requests.at(-1)).toMatchObject({ path: '/salesforce/query', headers: expect.objectContaining({ authorization: 'Bearer sf-access-1' }) });
    expect(cspViolations).toEqual([]);
  }, 60_000);
});
