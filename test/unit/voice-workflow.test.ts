/**
 * The pure rules of the voice-provider control surface (domain/servicing/voice-workflow.ts; docs/processes.md P4):
 * the structural check of a definition (each rule on its own, named by its dotted path), the canonical key order
 * answers use, terminal event types, and the task token's lifetime.
 */
import { describe, expect, it } from 'vitest';
import {
  canonicalDefinition,
  definitionProblems,
  terminalStatusOf,
  type VoiceWorkflowDefinition,
  voiceEventTypes,
  voiceTaskTokenExpiresAt,
} from '../../domain/servicing/voice-workflow';

function valid(): VoiceWorkflowDefinition {
  return {
    id: 'reminder',
    name: 'Reminder',
    outbound: true,
    nodes: [
      { id: 'start', type: 'start', label: 'Start' },
      { id: 'greet', type: 'say', label: 'Greet' },
      { id: 'ask', type: 'gather', label: 'Ask' },
      { id: 'bye', type: 'end', label: 'Bye' },
    ],
    edges: [
      { from: 'start', to: 'greet', on: 'next' },
      { from: 'greet', to: 'ask', on: 'next' },
      { from: 'ask', to: 'bye', on: 'digit.1' },
      { from: 'ask', to: 'greet', on: 'no_input' },
    ],
  };
}

const names = (definition: VoiceWorkflowDefinition, workflowId = 'reminder') =>
  definitionProblems(workflowId, definition).map((p) => p.parameterName);

describe('definitionProblems', () => {
  it('accepts a well-formed graph, loops included', () => {
    expect(definitionProblems('reminder', valid())).toEqual([]);
  });

  it('requires definition.id to equal the workflowId', () => {
    expect(names(valid(), 'other')).toEqual(['definition.id']);
  });

  it('names a duplicate node id at its second occurrence', () => {
    const d = valid();
    d.nodes.push({ id: 'greet', type: 'say', label: 'Again' });
    expect(names(d)).toEqual(['definition.nodes[4].id']);
  });

  it('requires exactly one start node (none or two)', () => {
    const none = valid();
    none.nodes[0]!.type = 'say';
    expect(names(none)).toEqual(['definition.nodes']);
    const two = valid();
    two.nodes.push({ id: 'again', type: 'start', label: 'Again' });
    two.edges.push({ from: 'again', to: 'greet', on: 'next' });
    expect(names(two)).toEqual(['definition.nodes']);
  });

  it('refuses edges to or from missing nodes, out of a terminal node, into the start node', () => {
    const d = valid();
    d.edges.push(
      { from: 'ghost', to: 'greet', on: 'next' },
      { from: 'greet', to: 'ghost', on: 'other' },
      { from: 'bye', to: 'greet', on: 'next' },
      { from: 'ask', to: 'start', on: 'digit.9' },
    );
    expect(names(d)).toEqual([
      'definition.edges[4].from',
      'definition.edges[5].to',
      'definition.edges[6].from',
      'definition.edges[7].to',
    ]);
  });

  it('refuses two edges leaving one node on the same outcome', () => {
    const d = valid();
    d.edges.push({ from: 'ask', to: 'bye', on: 'no_input' });
    expect(names(d)).toEqual(['definition.edges[4].on']);
  });

  it('refuses a node the start cannot reach', () => {
    const d = valid();
    d.nodes.push({ id: 'island', type: 'say', label: 'Island' });
    expect(names(d)).toEqual(['definition.nodes[4].id']);
  });
});

describe('canonical key order, events and token lifetime', () => {
  it('rebuilds the spec key order whatever order the keys came in', () => {
    const shuffled = JSON.parse(
      '{"edges":[{"on":"next","to":"b","from":"a"}],"nodes":[{"label":"A","type":"start","id":"a"}],"outbound":false,"name":"N","id":"w"}',
    ) as VoiceWorkflowDefinition;
    expect(JSON.stringify(canonicalDefinition(shuffled))).toBe(
      '{"id":"w","name":"N","outbound":false,"nodes":[{"id":"a","type":"start","label":"A"}],"edges":[{"from":"a","to":"b","on":"next"}]}',
    );
  });

  it('knows which event types end the call', () => {
    expect(voiceEventTypes.map((t) => [t, terminalStatusOf(t)])).toEqual([
      ['node.entered', null],
      ['call.answered', null],
      ['call.completed', 'COMPLETED'],
      ['call.failed', 'FAILED'],
      ['call.no_answer', 'NO_ANSWER'],
    ]);
  });

  it('lets a token live 24 hours at most', () => {
    expect(voiceTaskTokenExpiresAt(new Date('2026-11-23T10:00:00.000Z')).toISOString()).toBe(
      '2026-11-24T10:00:00.000Z',
    );
  });
});
