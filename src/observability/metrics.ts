/**
 * Prometheus metrics (prom-client). Each app has its own registry, so several services in one
 * process (tests) do not mix their counts; the process metrics (CPU, memory, event-loop lag) live in
 * one registry per process, since there is one process to describe.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ServiceObserver } from './observer.js';

let processRegistry: Registry | undefined;

function processMetrics(): Registry {
  if (processRegistry === undefined) {
    processRegistry = new Registry();
    // Includes nodejs_eventloop_lag_seconds and the event-loop delay percentiles.
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** Connections of the store's pool, read at scrape time. */
export interface PoolState {
  total: number;
  idle: number;
  waiting: number;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export class ServiceMetrics implements ServiceObserver {
  readonly registry = new Registry();
  readonly contentType = this.registry.contentType;
  /**
   * The process metrics start with the service: prom-client counts CPU time and samples event-loop delay
   * from the moment they are registered, so registering them at the first scrape reported the CPU of the
   * scrape alone and no event-loop samples (a minimum of 9.2e9 s).
   */
  private readonly processRegistry = processMetrics();
  private readonly requests = new Counter({
    name: 'switchyard_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status code.',
    labelNames: ['method', 'route', 'status_code'] as const,
    registers: [this.registry],
  });
  private readonly requestSeconds = new Histogram({
    name: 'switchyard_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, route template and status code.',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly upstreamCalls = new Counter({
    name: 'switchyard_upstream_calls_total',
    help: 'Operations sent to vendor APIs (execute calls and sync pages), by connector type and outcome ("success" or the error code).',
    labelNames: ['connector_type', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly upstreamSeconds = new Histogram({
    name: 'switchyard_upstream_call_duration_seconds',
    help: 'Duration of operations sent to vendor APIs (retries included), by connector type.',
    labelNames: ['connector_type'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly refreshes = new Counter({
    name: 'switchyard_oauth_refreshes_total',
    help: 'OAuth access-token refreshes, by connector type and whether the refresh token was rotated.',
    labelNames: ['connector_type', 'rotated'] as const,
    registers: [this.registry],
  });
  private readonly syncRuns = new Counter({
    name: 'switchyard_sync_runs_total',
    help: 'Context store sync runs of one entity, by connector type and final status.',
    labelNames: ['connector_type', 'status'] as const,
    registers: [this.registry],
  });
  private readonly syncRecords = new Counter({
    name: 'switchyard_sync_records_total',
    help: 'Records read from vendors by context store syncs, by connector type.',
    labelNames: ['connector_type'] as const,
    registers: [this.registry],
  });
  private readonly syncDeleted = new Counter({
    name: 'switchyard_sync_deleted_records_total',
    help: "Records context store syncs marked deleted (missed by two full walks in a row, missed by one and answered 404 by the vendor, named by a vendor's deleted feed, or read archived or trashed), by connector type.",
    labelNames: ['connector_type'] as const,
    registers: [this.registry],
  });

  constructor(store: { kind: string; poolState(): PoolState }) {
    const registry = this.registry;
    const gauge = (name: string, help: string, read: (state: PoolState) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['store'] as const,
        registers: [registry],
        collect() {
          this.set({ store: store.kind }, read(store.poolState()));
        },
      });
    gauge('switchyard_store_pool_connections', 'Connections the store pool holds (PGlite: its one connection).', (s) => s.total);
    gauge('switchyard_store_pool_idle_connections', 'Connections of the store pool not lent to a query or transaction.', (s) => s.idle);
    gauge('switchyard_store_pool_waiting_requests', 'Queries and transactions waiting for a store connection.', (s) => s.waiting);
  }

  /** Called once per answered request (Fastify onResponse): two label lookups and two increments. */
  requestAnswered(method: string, route: string, statusCode: number, seconds: number): void {
    const labels = { method, route, status_code: statusCode };
    this.requests.inc(labels);
    this.requestSeconds.observe(labels, seconds);
  }

  upstreamCall(connectorType: string, outcome: string, seconds: number): void {
    this.upstreamCalls.inc({ connector_type: connectorType, outcome });
    this.upstreamSeconds.observe({ connector_type: connectorType }, seconds);
  }

  tokenRefreshed(connectorType: string, rotated: boolean): void {
    this.refreshes.inc({ connector_type: connectorType, rotated: String(rotated) });
  }

  syncFinished(connectorType: string, status: string, records: number, deleted: number): void {
    this.syncRuns.inc({ connector_type: connectorType, status });
    if (records > 0) this.syncRecords.inc({ connector_type: connectorType }, records);
    if (deleted > 0) this.syncDeleted.inc({ connector_type: connectorType }, deleted);
  }

  /** The Prometheus text exposition of this service and of the process. */
  async text(): Promise<string> {
    const [own, process] = await Promise.all([this.registry.metrics(), this.processRegistry.metrics()]);
    return `${own}\n${process}`;
  }
}
