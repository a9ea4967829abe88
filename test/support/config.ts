import type { ServiceConfig } from '../../src/config.js';

/** Service settings for suites and benchmarks: loopback, any port, logs off, an in-memory store; what a caller names wins. */
export function testConfig(overrides: Partial<ServiceConfig> = {}): ServiceConfig {
  return {
    host: '127.0.0.1',
    port: 0,
    dataDir: 'memory://',
    upstreamBaseUrls: {},
    logLevel: 'silent',
    tokenTtlSeconds: 900,
    bodyLimitBytes: 1_048_576,
    ...overrides,
  };
}
