/**
 * The voice-provider control surface, pure rules (docs/servicing.md "Voice-provider control surface"; docs/processes.md
 * P4 "Voice-provider control surface"; docs/design.md §5 "Inbound channel events": the voice task token).
 *
 * A voice workflow is a call script the provider runs: a directed graph of nodes (`start`, `say`, `gather`,
 * `transfer`, `hangup`, `end`) joined by edges labelled with the outcome that follows them (`on`). Versions are
 * immutable; one version per workflow is active and a dispatch pins the version active when it is created.
 * This module checks a definition's structure (beyond the field syntax the API schema checks), names the
 * provider's callback events, and defines the task token's format and lifetime.
 */

/** Node types a definition may use. `start` begins the call; `hangup` and `end` finish it. */
export const voiceNodeTypes = ['start', 'say', 'gather', 'transfer', 'hangup', 'end'] as const;
export type VoiceNodeType = (typeof voiceNodeTypes)[number];

/** Node types after which the call is over: no edge may leave them. */
export const terminalNodeTypes: readonly VoiceNodeType[] = ['hangup', 'end'];

/** A workflow id: 1–64 of letters, digits, `.`, `_`, `-`, starting with a letter or digit. */
export const workflowIdPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** A node id: 1–64 of letters, digits, `_`, `-`, starting with a letter. */
export const nodeIdPattern = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
/** An edge's `on` (the outcome that takes it, e.g. `next`, `digit.1`, `no_input`): 1–64 lower-case. */
export const edgeOutcomePattern = /^[a-z][a-z0-9_.-]{0,63}$/;

/** Bounds of one definition. */
export const voiceDefinitionLimits = {
  nodesMax: 200,
  edgesMax: 1000,
  nameLengthMax: 200,
  labelLengthMax: 200,
} as const;

export interface VoiceWorkflowNode {
  id: string;
  type: VoiceNodeType;
  label: string;
}

export interface VoiceWorkflowEdge {
  from: string;
  to: string;
  on: string;
}

/** A definition exactly as the spec shows it (`definition` of a voice workflow version). */
export interface VoiceWorkflowDefinition {
  id: string;
  name: string;
  outbound: boolean;
  nodes: VoiceWorkflowNode[];
  edges: VoiceWorkflowEdge[];
}

/** One structural problem: the dotted path of the offending input (from the body root) and why. */
export interface DefinitionProblem {
  parameterName: string;
  value: unknown;
  message: string;
}

/**
 * The structural problems of `definition` for workflow `workflowId`, in body order; empty when it is valid:
 * `definition.id` must equal the path's workflowId; node ids are unique; exactly one `start` node; every edge
 * joins existing nodes; no edge leaves a `hangup` or `end` node or enters the `start` node; no two edges leave
 * one node on the same outcome (the provider could not choose); every node is reachable from the start node.
 * Field syntax and counts are the API schema's job (domain/servicing/schemas/voice.ts).
 */
export function definitionProblems(
  workflowId: string,
  definition: VoiceWorkflowDefinition,
): DefinitionProblem[] {
  const problems: DefinitionProblem[] = [];
  if (definition.id !== workflowId) {
    problems.push({
      parameterName: 'definition.id',
      value: definition.id,
      message: `definition.id must equal the workflowId of the path (${workflowId}).`,
    });
  }
  const nodeTypes = new Map<string, VoiceNodeType>();
  definition.nodes.forEach((node, index) => {
    if (nodeTypes.has(node.id)) {
      problems.push({
        parameterName: `definition.nodes[${index}].id`,
        value: node.id,
        message: `definition.nodes[${index}].id: node id ${node.id} is used by an earlier node; node ids are unique.`,
      });
      return;
    }
    nodeTypes.set(node.id, node.type);
  });
  const starts = definition.nodes.filter((node) => node.type === 'start');
  if (starts.length !== 1) {
    problems.push({
      parameterName: 'definition.nodes',
      value: null,
      message: `definition.nodes must hold exactly one node of type start; it holds ${starts.length}.`,
    });
  }
  const outcomes = new Set<string>();
  definition.edges.forEach((edge, index) => {
    const at = `definition.edges[${index}]`;
    const fromType = nodeTypes.get(edge.from);
    const toType = nodeTypes.get(edge.to);
    if (fromType === undefined) {
      problems.push({
        parameterName: `${at}.from`,
        value: edge.from,
        message: `${at}.from: no node has the id ${edge.from}; every edge joins existing nodes.`,
      });
    } else if (terminalNodeTypes.includes(fromType)) {
      problems.push({
        parameterName: `${at}.from`,
        value: edge.from,
        message: `${at}.from: node ${edge.from} is of type ${fromType}, which ends the call; no edge may leave it.`,
      });
    }
    if (toType === undefined) {
      problems.push({
        parameterName: `${at}.to`,
        value: edge.to,
        message: `${at}.to: no node has the id ${edge.to}; every edge joins existing nodes.`,
      });
    } else if (toType === 'start') {
      problems.push({
        parameterName: `${at}.to`,
        value: edge.to,
        message: `${at}.to: node ${edge.to} is the start node; no edge may enter it.`,
      });
    }
    const outcome = `${edge.from}\u0000${edge.on}`;
    if (outcomes.has(outcome)) {
      problems.push({
        parameterName: `${at}.on`,
        value: edge.on,
        message: `${at}.on: node ${edge.from} already has an edge on ${edge.on}; the outcomes leaving a node are unique.`,
      });
    }
    outcomes.add(outcome);
  });
  if (problems.length > 0 || starts.length !== 1) return problems;
  // Reachability only once the graph is well formed (otherwise it would repeat the errors above).
  const next = new Map<string, string[]>();
  for (const edge of definition.edges) next.set(edge.from, [...(next.get(edge.from) ?? []), edge.to]);
  const reached = new Set<string>([starts[0]!.id]);
  const queue = [starts[0]!.id];
  while (queue.length > 0) {
    for (const to of next.get(queue.shift()!) ?? []) {
      if (!reached.has(to)) {
        reached.add(to);
        queue.push(to);
      }
    }
  }
  definition.nodes.forEach((node, index) => {
    if (!reached.has(node.id)) {
      problems.push({
        parameterName: `definition.nodes[${index}].id`,
        value: node.id,
        message: `definition.nodes[${index}].id: node ${node.id} cannot be reached from the start node.`,
      });
    }
  });
  return problems;
}

/**
 * A definition with its keys in the spec's order (`id, name, outbound, nodes[{id, type, label}], edges[{from,
 * to, on}]`): stored as `jsonb`, which reorders keys, it is rebuilt this way for every answer.
 */
export function canonicalDefinition(definition: VoiceWorkflowDefinition): VoiceWorkflowDefinition {
  return {
    id: definition.id,
    name: definition.name,
    outbound: definition.outbound,
    nodes: definition.nodes.map((node) => ({ id: node.id, type: node.type, label: node.label })),
    edges: definition.edges.map((edge) => ({ from: edge.from, to: edge.to, on: edge.on })),
  };
}

/**
 * Event types of the provider's callback (`POST /v1/servicing/voice-dispatches/{dispatchId}/events`):
 * `node.entered` (needs `nodeId`), `call.answered`, and the terminal `call.completed`, `call.failed`,
 * `call.no_answer`.
 */
export const voiceEventTypes = [
  'node.entered',
  'call.answered',
  'call.completed',
  'call.failed',
  'call.no_answer',
] as const;
export type VoiceEventType = (typeof voiceEventTypes)[number];

/** Dispatch statuses: `DISPATCHED` → `IN_PROGRESS` (first non-terminal event) → one terminal outcome. */
export const voiceDispatchStatuses = [
  'DISPATCHED',
  'IN_PROGRESS',
  'COMPLETED',
  'FAILED',
  'NO_ANSWER',
] as const;
export type VoiceDispatchStatus = (typeof voiceDispatchStatuses)[number];

/** The terminal status an event type leads to, or null when the call goes on. */
export function terminalStatusOf(eventType: VoiceEventType): 'COMPLETED' | 'FAILED' | 'NO_ANSWER' | null {
  if (eventType === 'call.completed') return 'COMPLETED';
  if (eventType === 'call.failed') return 'FAILED';
  if (eventType === 'call.no_answer') return 'NO_ANSWER';
  return null;
}

/** Name of the callback's only credential (docs/design.md §5 "Inbound channel events"). */
export const voiceTaskTokenHeader = 'X-Service-Voice-Task-Token';

/** Prefix of a voice task token: `vtt_` + base64url (RFC 4648 §5) of 32 random bytes (256 bits). */
export const voiceTaskTokenPrefix = 'vtt_';

/** Bytes of randomness in a token (docs/design.md §5: ≥ 128 bits; 256 here, like access tokens). */
export const voiceTaskTokenRandomBytes = 32;

/** Longest header value examined; anything longer is refused unread. */
export const voiceTaskTokenLengthMax = 256;

/** A token works at most this long after its dispatch was created (and only while its task is OPEN). */
export const voiceTaskTokenLifetimeHours = 24;

/** When a token minted at `createdAt` stops working at the latest. */
export function voiceTaskTokenExpiresAt(createdAt: Date): Date {
  return new Date(createdAt.getTime() + voiceTaskTokenLifetimeHours * 3600 * 1000);
}
