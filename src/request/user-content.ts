/**
 * The student's message as the model gets it (the last message of every pass): the words they typed,
 * each attached file as untrusted data (wrapped as a tool's result is, and cut), a line naming the images
 * the model does not get, and the images it does as `image_url` parts, priced by its rule. One builder
 * serves the turn's messages (pipeline/prepare.ts) and admission's first hold (turn-reservation.ts), so
 * what is held is what is sent.
 */
import type { ChatCompletionContentPart } from 'openai/resources/chat/completions';
import { pricedImagePart } from '../model/estimate-usage.js';
import { wrapUntrusted } from '../tools/untrusted-result.js';
import type { TurnRequest } from './chat-request.js';
import { ATTACHMENT_LIMITS, type AttachedFile, type UnreadAttachment } from './message-attachments.js';

/** The files as the model reads them: each wrapped as untrusted data and cut to ATTACHMENT_LIMITS.fileCharsToModel. */
export function attachedFilesText(files: readonly AttachedFile[]): string {
  return files.map((f) => wrapUntrusted(`ATTACHED FILE ${f.name}`, f.text, ATTACHMENT_LIMITS.fileCharsToModel)).join('\n\n');
}

/**
 * What the model is told of attachments it does not get, so it neither pretends to have seen them nor
 * asks again: one line, after the student's words.
 */
export function unreadForModel(unread: readonly UnreadAttachment[]): string {
  if (unread.length === 0) return '';
  const names = unread.map((u) => `"${u.name}"`).join(', ');
  return `[The student attached ${unread.length === 1 ? 'an image' : 'images'} (${names}) that you cannot see. Do not describe ${unread.length === 1 ? 'it' : 'them'}; help from their words.]`;
}

/** The user message's content: the request's words alone (a string) when it has no attachment. */
export function userContent(request: Pick<TurnRequest, 'query' | 'seen'>): string | ChatCompletionContentPart[] {
  const seen = request.seen;
  if (!seen) return request.query;
  const attachments = seen.images.length + seen.files.length + seen.unread.length;
  const words = request.query || `(The student sent ${attachments === 1 ? 'an attachment' : 'attachments'} without a question.)`;
  const text = [words, attachedFilesText(seen.files), unreadForModel(seen.unread)].filter(Boolean).join('\n\n');
  if (seen.images.length === 0) return text;
  return [{ type: 'text', text }, ...seen.images.map((image) => pricedImagePart(image.dataUrl, image.tokens))];
}
