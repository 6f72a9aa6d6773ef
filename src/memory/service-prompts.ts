/**
 * Every fixed prompt the service writes, as one reference text for the leak policy's `carriesPrompt`:
 * the chat system prompt's fixed parts, the memory extraction and remember (reconciliation) prompts and
 * the title prompt. A fact that repeats any of them (a model echoing its own instructions, a user asking
 * it to) is refused the same way (fact-guard.ts); before, only the chat prompt was known, and 19 of 24
 * forms of the extraction prompt were stored.
 */
import { TITLE_SYSTEM_PROMPT } from '../model/title.js';
import { referenceSystemPrompt } from '../prompt/system-prompt.js';
import { EXTRACTION_SYSTEM_PROMPT } from './extraction.js';
import { REMEMBER_SYSTEM_PROMPT } from './remember-tool.js';

export function serviceReferencePrompts(campus: { assistantName: string; campusName: string }): string {
  return [referenceSystemPrompt(campus), EXTRACTION_SYSTEM_PROMPT, REMEMBER_SYSTEM_PROMPT, TITLE_SYSTEM_PROMPT].join('\n\n');
}
