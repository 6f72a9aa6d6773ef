/**
 * The one set of admission fakes for route and pipeline tests: an admission that admits everything and
 * records what was charged, with any method replaced where a test needs another answer (a 429 from
 * `admit`, a refusal, a replaced answer).
 */
import { openAdmission, unmeteredBudget, type Admission, type Refusal } from '../../src/admission/admission.js';
import type { AppError } from '../../src/http/errors.js';
import type { Usage } from '../../src/model/usage.js';

export interface FakeAdmission extends Admission {
  /** Every usage charged (each turn's passes, titles, extractions), in order. */
  charges: Usage[];
  /** Resolves once `count` passes were charged. */
  charged(count?: number): Promise<void>;
}

/**
 * Wraps `inner` (a real admission, or the open one) to record every charge once `inner` stored it: the
 * passes settled through each admitted turn's budget, and the charges of titles and extraction.
 */
export function recordingAdmission(inner: Admission = openAdmission): FakeAdmission {
  const charges: Usage[] = [];
  const waiters: Array<() => boolean> = [];
  const record = (usage: Usage) => {
    charges.push(usage);
    for (const w of waiters.splice(0)) if (!w()) waiters.push(w);
  };
  return {
    admit: async (request, signal) => {
      const decision = await inner.admit(request, signal);
      const budget = decision.budget;
      return {
        ...decision,
        budget: {
          get held() {
            return budget.held;
          },
          hold: (size) => budget.hold(size),
          charge: async (usage) => {
            await budget.charge(usage);
            record(usage);
          },
          release: () => budget.release(),
        },
      };
    },
    reserveCall: async (call) => {
      const held = await inner.reserveCall(call);
      if (held.refused !== null) return held;
      return {
        refused: null,
        settle: async (usage) => {
          await held.settle(usage);
          if (usage) record(usage);
        },
      };
    },
    notePromptSize: (tokens) => inner.notePromptSize(tokens),
    reviewAnswer: (text, signal) => inner.reviewAnswer(text, signal),
    close: () => inner.close(),
    charges,
    charged: (count = 1) =>
      new Promise<void>((resolve) => {
        const check = () => (charges.length >= count ? (resolve(), true) : false);
        if (!check()) waiters.push(check);
      }),
  };
}

/** The open admission (admits everything), recording charges, with any method replaced. */
export const fakeAdmission = (overrides: Partial<Admission> = {}): FakeAdmission => recordingAdmission({ ...openAdmission, ...overrides });

/** An admission whose `admit` refuses with `error` (429, 503) before any stream starts. */
export const refusingAdmission = (error: AppError) => fakeAdmission({ admit: async () => Promise.reject(error) });

/** An admission whose moderation stopped the message: the turn answers `refusal` with no model call. */
export const moderatedAdmission = (refusal: Refusal) => fakeAdmission({ admit: async () => ({ refusal: Promise.resolve(refusal), budget: unmeteredBudget }) });

/** An admission whose answer review replaces every answer. */
export const replacingAdmission = (replacement: Refusal) => fakeAdmission({ reviewAnswer: async () => replacement });
