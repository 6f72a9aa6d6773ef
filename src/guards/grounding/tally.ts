/**
 * One answer's grounding counts (issue 45): claims checked and claims no evidence held, in all and by
 * class, the classes that were marked, and a snapshot to judge a held sentence again without counting
 * it twice (issue 73). The grounding stream is one.
 */
import type { ClaimClass } from './claims.js';
import type { ClaimOutcome } from './evidence.js';

/** Claims checked and claims no evidence held: of one class, or of a whole answer (`metadata.grounding`, CONTRACT.md). */
export interface GroundingCounts {
  checked: number;
  unverified: number;
}

/**
 * Per class, for telemetry: of the unverified, those true elsewhere but not for their day ('misbound');
 * of the kept, those whose days the reader could not tell and whose value its place holds on some day
 * ('ambiguous', issue 73).
 */
export interface ClassCounts extends GroundingCounts {
  misbound: number;
  ambiguous: number;
}

/** An answer's counts at one moment. */
export interface Counts {
  checked: number;
  unverified: number;
  byClass: Map<ClaimClass, ClassCounts>;
  unconfirmed: Set<ClaimClass>;
}

export class Tally {
  checked = 0;
  unverified = 0;
  readonly byClass = new Map<ClaimClass, ClassCounts>();
  /** Classes of the claims that were replaced (the closing note says where to check them). */
  readonly unconfirmed = new Set<ClaimClass>();

  protected count(cls: ClaimClass, outcome: ClaimOutcome, ambiguous = false): void {
    const c = this.byClass.get(cls) ?? { checked: 0, unverified: 0, misbound: 0, ambiguous: 0 };
    c.checked++;
    this.checked++;
    if (ambiguous) c.ambiguous++;
    if (outcome !== 'held') {
      c.unverified++;
      this.unverified++;
      this.unconfirmed.add(cls);
      if (outcome === 'misbound') c.misbound++;
    }
    this.byClass.set(cls, c);
  }

  protected snapshot(): Counts {
    return { checked: this.checked, unverified: this.unverified, byClass: new Map([...this.byClass].map(([k, v]) => [k, { ...v }])), unconfirmed: new Set(this.unconfirmed) };
  }

  protected restore(counts: Counts): void {
    this.checked = counts.checked;
    this.unverified = counts.unverified;
    this.byClass.clear();
    for (const [k, v] of counts.byClass) this.byClass.set(k, v);
    this.unconfirmed.clear();
    for (const c of counts.unconfirmed) this.unconfirmed.add(c);
  }

  protected clear(): void {
    this.checked = 0;
    this.unverified = 0;
    this.byClass.clear();
    this.unconfirmed.clear();
  }
}
