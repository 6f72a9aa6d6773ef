/**
 * The fixed answers of admission control: what a turn says instead of calling the model when
 * moderation stops a message, and what replaces an answer that moderation stops. Short and kind, no
 * blame, no mention of scores or categories; phone numbers come from configuration.
 */
import type { Config } from '../config.js';

type CampusReplyConfig = Pick<Config['campus'], 'campusName' | 'counselingPhone' | 'policePhone'>;

/** The refusal for a flagged message (not self-harm): declines kindly and offers campus help. */
export function moderationRefusal(campus: CampusReplyConfig): string {
  return (
    "I'm sorry, but I can't help with that request. " +
    `I'm happy to help with anything around ${campus.campusName}, though: finding a building, ` +
    "what's open to eat, courses, or campus services. What would you like to know?"
  );
}

/**
 * The answer for a message flagged for self-harm: supportive, points to crisis resources first
 * (988 Suicide & Crisis Lifeline, the campus counseling service, campus police for an emergency).
 */
export function selfHarmSupport(campus: CampusReplyConfig): string {
  return [
    "I'm really sorry you're going through this, and I'm glad you said something. You don't have to face it alone.",
    '',
    '- **988 Suicide & Crisis Lifeline**: call or text **988** (24/7, free and confidential), or chat at 988lifeline.org.',
    `- **Campus counseling**: ${campus.counselingPhone}, ask to speak with someone today.`,
    `- **Campus police**: ${campus.policePhone}, or **911**, if you or someone else is in immediate danger.`,
    '',
    "If you'd like, I can also help you find the counseling center on the campus map or anything else on campus.",
  ].join('\n');
}

/** Replaces a model answer that moderation flagged: a short notice, nothing of the answer itself. */
export function flaggedAnswerNotice(campus: CampusReplyConfig): string {
  return (
    "Sorry, I can't share that answer. " +
    `Please try asking in a different way, or ask me something else about ${campus.campusName}.`
  );
}
