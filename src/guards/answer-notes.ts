/** What verification (and the canned-answer paths) report about the final answer; `thought` is built from it. */
export interface AnswerNotes {
  refused?: 'injection' | 'prompt_leak' | 'moderation' | 'self_harm';
  repairedFailureClaim?: boolean;
  redacted?: boolean;
  emptyModelOutput?: boolean;
}
