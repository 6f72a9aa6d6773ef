/**
 * The offline model's chat titles (`/agent/title`): 2-5 words from what the first question asks.
 */
import { detectIntent } from './intents.js';

/** A 2-5 word title for a conversation that starts with this question (`/agent/title`). */
export function titleFor(question: string): string {
  const intent = detectIntent(question);
  const short = (s: string) => titleCase(s.split(/\s+/).slice(0, 3).join(' '));
  switch (intent.kind) {
    case 'remember':
      return 'Saving a Preference';
    case 'forget':
      return 'Forgetting Saved Facts';
    case 'about-me':
      return 'What I Remember';
    case 'course':
      return `Course ${intent.courseId} Questions`;
    case 'course-title':
      return `${short(intent.title)} Course`;
    case 'search':
      return intent.only === 'courses' ? `${short(intent.query)} Courses` : 'Campus Search';
    case 'geneds':
      return 'Gen Ed Courses';
    case 'where':
      return `Finding ${short(intent.place)}`;
    case 'route':
      return 'Campus Walking Directions';
    case 'eats':
      return intent.cuisine ? `${titleCase(intent.cuisine)} on Campus` : intent.at ? 'Dining Hours on Campus' : 'Dining Options Now';
    case 'dining-in':
      return `Dining in ${short(intent.place)}`;
    case 'hours':
      return `${short(intent.place)} Opening Hours`;
    case 'bus':
      return intent.pass ? 'Riding PRT with a CMU ID' : intent.route ? `Next ${intent.route} Bus` : intent.place ? `Bus to ${intent.place}` : 'Next Bus from Campus';
    default: {
      const words = question.replace(/[^\p{L}\p{N}\s'-]+/gu, ' ').split(/\s+/).filter(Boolean).slice(0, 4);
      return words.length >= 2 ? titleCase(words.join(' ')) : 'Campus Chat';
    }
  }
}

function titleCase(s: string): string {
  return s.replace(/\b\p{L}/gu, (c) => c.toUpperCase());
}
