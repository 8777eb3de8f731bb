/**
 * OpenTelemetry traces from the HTTP request through the workflow to its activities, per process:
 * - `startTracing({ serviceName })` turns tracing on only when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 *   `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set and `OTEL_SDK_DISABLED` is not `true`: a `NodeTracerProvider`
 *   (service.name = `OTEL_SERVICE_NAME` or the process kind: `lending-service`, `lending-api`, `lending-worker`),
 *   a `BatchSpanProcessor` and the OTLP/HTTP exporter (JSON; endpoint, headers and timeouts from the standard
 *   `OTEL_EXPORTER_OTLP_*` variables), W3C Trace Context as the only propagator (no baggage from callers reaches
 *   workflow headers). Otherwise nothing is registered and the OpenTelemetry API stays a no-op.
 * - `temporalClientInterceptors()`: the Temporal client interceptor that makes a workflow start, signal or update a
 *   child span of the active one (the HTTP server span, api/middleware/http-tracing.ts) and carries its context in
 *   the workflow's headers; none when tracing is off.
 * - `tracingActivityInterceptors()`: the activity inbound interceptor (an activity span, child of the workflow's
 *   schedule span) when tracing is on; none when off.
 * - `workflowSpanSinks()`: the sink the workflow interceptors (bundled only when tracing is on:
 *   `workflowInterceptorModulesFor`, workers/queue-worker.ts) export their spans through; a bundle without them
 *   never calls it, and with tracing off it drops what it gets.
 *   The sink keeps only the workflow id, run id, type, task queue and namespace of the workflow's info as span
 *   attributes (the library's own sink copies the whole info, search attributes included, which hold customer
 *   refs), and converts the spans to the SDK 2.x shape the OTLP exporter reads (`parentSpanContext`,
 *   `instrumentationScope`; the interceptors' sandbox runs OpenTelemetry 1.x).
 */
import type { Attributes, HrTime, SpanContext } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { type Resource, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  type SerializableSpan,
} from '@temporalio/interceptors-opentelemetry';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';

interface ActiveTracing {
  provider: NodeTracerProvider;
  processor: SpanProcessor;
  resource: Resource;
}

let active: ActiveTracing | null = null;

/** True when `env` asks for traces (module note). */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').toLowerCase() === 'true') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/** True once `startTracing` turned tracing on in this process. */
export function tracingEnabled(): boolean {
  return active !== null;
}

/**
 * Turns tracing on for this process when `env` asks for it (module note); call once, before any Temporal client or
 * worker is created. Returns whether it is on and how to flush and stop it (exports what is buffered).
 */
export function startTracing(options: { serviceName: string; env?: NodeJS.ProcessEnv }): {
  enabled: boolean;
  shutdown(): Promise<void>;
} {
  const env = options.env ?? process.env;
  if (active) return { enabled: true, shutdown: stopTracing };
  if (!tracingRequested(env)) return { enabled: false, shutdown: async () => {} };
  const resource = resourceFromAttributes({
    [ATTR_SERVICE_NAME]: env.OTEL_SERVICE_NAME || options.serviceName,
  });
  const processor = new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  active = { provider, processor, resource };
  return { enabled: true, shutdown: stopTracing };
}

/** Exports the spans still buffered (tests read them right after). */
export async function flushTracing(): Promise<void> {
  await active?.provider.forceFlush();
}

async function stopTracing(): Promise<void> {
  const current = active;
  if (!current) return;
  await current.provider.shutdown();
}

/** The Temporal client's interceptors: the OpenTelemetry one when tracing is on, else none. */
export function temporalClientInterceptors():
  | { workflow: OpenTelemetryWorkflowClientInterceptor[] }
  | undefined {
  return active ? { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } : undefined;
}

/** The activity interceptors of tracing: an activity span per execution, when tracing is on; else none. */
export function tracingActivityInterceptors(): ActivityInterceptorsFactory[] {
  if (!active) return [];
  return [
    (ctx) => ({
      inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
      outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
    }),
  ];
}

/** The workflow info kept on workflow spans: identifiers of the execution, never its search attributes or memo. */
export function workflowSpanAttributesOf(info: WorkflowInfo): Attributes {
  return {
    temporalWorkflowId: info.workflowId,
    temporalRunId: info.runId,
    temporalWorkflowType: info.workflowType,
    temporalTaskQueue: info.taskQueue,
    temporalNamespace: info.namespace,
  };
}

/** A span serialized by the workflow interceptors, as the 2.x SDK's `ReadableSpan`. */
function readableSpanOf(span: SerializableSpan, info: WorkflowInfo, resource: Resource): ReadableSpan {
  const { traceState: _traceState, ...context } = span.spanContext;
  const spanContext: SpanContext = context;
  const parentSpanContext: SpanContext | undefined = span.parentSpanId
    ? { traceId: context.traceId, spanId: span.parentSpanId, traceFlags: context.traceFlags, isRemote: false }
    : undefined;
  return {
    name: span.name,
    kind: span.kind,
    spanContext: () => spanContext,
    ...(parentSpanContext ? { parentSpanContext } : {}),
    startTime: span.startTime as HrTime,
    endTime: span.endTime as HrTime,
    status: span.status,
    attributes: { ...span.attributes, ...workflowSpanAttributesOf(info) },
    links: span.links,
    events: span.events,
    duration: span.duration as HrTime,
    ended: span.ended,
    resource,
    instrumentationScope: {
      name: span.instrumentationLibrary?.name ?? '@temporalio/interceptor-workflow',
      ...(span.instrumentationLibrary?.version ? { version: span.instrumentationLibrary.version } : {}),
    },
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

/**
 * The `exporter` sink of the bundled workflow interceptors: hands their spans to this process's span processor
 * when tracing is on, drops them when off (module note). Not called while replaying history.
 */
export function workflowSpanSinks(): InjectedSinks<{
  exporter: { export(spans: SerializableSpan[]): void };
}> {
  return {
    exporter: {
      export: {
        fn: (info: WorkflowInfo, spans: SerializableSpan[]) => {
          const current = active;
          if (!current) return;
          for (const span of spans) current.processor.onEnd(readableSpanOf(span, info, current.resource));
        },
        callDuringReplay: false,
      },
    },
  };
}
