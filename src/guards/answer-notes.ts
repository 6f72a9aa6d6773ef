/** What verification (and the canned-answer paths) report about the final answer; `thought` is built from it. */
export interface AnswerNotes {
  refused?: 'injection' | 'prompt_leak' | 'moderation' | 'self_harm';
  repairedFailureClaim?: boolean;
  redacted?: boolean;
  emptyModelOutput?: boolean;
  /** Details no evidence held were marked "not confirmed" (issue 45). */
  unconfirmedDetails?: boolean;
}
