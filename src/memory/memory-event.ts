/** The `memory` event of CONTRACT.md "Stream": what the remember and forget tools changed this turn. */
export type MemoryEventData =
  | { op: 'add'; text: string; id: string; kind: 'learned' | 'remembered'; fact: string }
  | { op: 'remove'; text: string };

export interface MemoryEvent {
  type: 'memory';
  data: MemoryEventData;
}
