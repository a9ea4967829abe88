/**
 * Runs before each test file. Files share their worker's process (vitest.config.ts: isolate false), so
 * each one starts as a fresh process would for what the suites change globally: nock intercepting (a
 * file about the real transport turns it off), no vendor mock left pending and the network allowed (a
 * file that mocks vendors disallows it itself).
 */
import nock from 'nock';

if (!nock.isActive()) nock.activate();
nock.cleanAll();
nock.enableNetConnect();
