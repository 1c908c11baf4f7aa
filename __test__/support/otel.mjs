// OpenTelemetry as an app sets it up for the AI SDK's telemetry: a tracer
// provider with an in-memory exporter behind a simple span processor, and
// the async-hooks context manager, both registered globally, so a span an
// AI SDK call opens is the active span inside its model call.
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

/**
 * Registers the global provider and context manager (once per test file);
 * returns `{ exporter, provider }`.
 */
export function registerOtel() {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  return { exporter, provider };
}

/**
 * The seamguard events of the spans ended so far (exported first), each as
 * `{ name, span, traceId, attributes }`, span by span in the order they
 * ended.
 */
export async function seamguardEvents({ exporter, provider }) {
  await provider.forceFlush();
  const events = [];
  for (const span of exporter.getFinishedSpans()) {
    for (const event of span.events) {
      if (event.name.startsWith('seamguard.')) events.push({ name: event.name, span: span.name, traceId: span.spanContext().traceId, attributes: event.attributes });
    }
  }
  return events;
}

/** Events by the trace they were recorded in (a conversation's run is one trace). */
export function byTrace(events) {
  const traces = new Map();
  for (const event of events) {
    if (!traces.has(event.traceId)) traces.set(event.traceId, []);
    traces.get(event.traceId).push(event);
  }
  return traces;
}
