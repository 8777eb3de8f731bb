/** Temporal client connection settings shared by every entry point; no SDK runtime import (the API process loads it). */

/**
 * gRPC channel arguments for every long-lived Temporal client connection (the API's, the workers' client): the
 * reconnect backoff starts at 250 ms and is capped at 1 s (gRPC's defaults grow it to 120 s, so after a Temporal
 * outage of a minute the API went on answering 503 for more than a minute after the server was back). A capped
 * backoff reconnects within about a second of the server's return. Source: gRPC core channel arguments
 * `grpc.initial_reconnect_backoff_ms` and `grpc.max_reconnect_backoff_ms` (grpc-js honours both).
 */
export const temporalChannelArgs = {
  'grpc.initial_reconnect_backoff_ms': 250,
  'grpc.min_reconnect_backoff_ms': 250,
  'grpc.max_reconnect_backoff_ms': 1000,
} as const;
