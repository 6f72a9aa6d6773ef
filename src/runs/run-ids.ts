/**
 * Run ids (CONTRACT.md "Resuming a stream": unguessable, bound to their owner), and what an id tells a
 * replica that finds no row for it (docs/design/runs.md "The row, lazily").
 *
 * An id is 46 bytes in base64url (62 characters, no `:`, so `<run_id>:<seq>` parses):
 * - `key`, 16 random bytes (128 bits): the run's row in the log, written as a UUID;
 * - `replica`, the producing replica's id (a UUID), and `beat`, the number of that replica's last
 *   heartbeat sent when the run started: a replica writes a new run's row at its next heartbeat at the
 *   latest, so a replica whose heartbeat is past `beat` has written it (a row missing then was deleted);
 * - a MAC (HMAC-SHA256, 80 bits) over the above and the owner, keyed from AGENT_SHARED_SECRET: an id
 *   this service did not issue for this owner opens to nothing, with no query, so another user's id
 *   and a made-up one are the same 404 and cost the same.
 *
 * Without AGENT_SHARED_SECRET (auth off: local runs) the key is a fixed one: a caller who can reach the
 * service then acts as any user anyway, so the MAC guards nothing more there.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** What a run id names. */
export interface RunRef {
  /** The id as clients see it (`X-Run-Id`). */
  id: string;
  /** The run's row in the log (a UUID). */
  key: string;
  /** The replica that produced it (a UUID). */
  replica: string;
  /** The producing replica's last heartbeat sent when the run started. */
  beat: number;
}

const KEY_BYTES = 16;
const REPLICA_BYTES = 16;
const BEAT_BYTES = 4;
const MAC_BYTES = 10;
const SIGNED = KEY_BYTES + REPLICA_BYTES + BEAT_BYTES;
const ID = /^[A-Za-z0-9_-]{62}$/;

const uuidOf = (b: Buffer) => {
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};
const bytesOfUuid = (u: string) => Buffer.from(u.replaceAll('-', ''), 'hex');

export class RunIds {
  private readonly macKey: Buffer;

  constructor(sharedSecret: string | null) {
    // A key of its own (not the secret itself), so nothing computed with it says anything of the secret.
    this.macKey = createHmac('sha256', sharedSecret ?? 'campus-agent: auth off').update('campus-agent run ids v1').digest();
  }

  /** A new run's id, for `owner`, produced by `replica` after its heartbeat `beat`. */
  issue(owner: string, replica: string, beat: number): RunRef {
    const body = Buffer.alloc(SIGNED);
    randomBytes(KEY_BYTES).copy(body, 0);
    bytesOfUuid(replica).copy(body, KEY_BYTES);
    body.writeUInt32BE(beat >>> 0, KEY_BYTES + REPLICA_BYTES);
    const id = Buffer.concat([body, this.mac(body, owner)]).toString('base64url');
    return { id, key: uuidOf(body.subarray(0, KEY_BYTES)), replica, beat: beat >>> 0 };
  }

  /** What `id` names, when this service issued it for `owner`; null for anything else. */
  open(id: string, owner: string): RunRef | null {
    if (!ID.test(id)) return null;
    const bytes = Buffer.from(id, 'base64url');
    // One spelling per id: the last character's unused bits must be zero.
    if (bytes.toString('base64url') !== id) return null;
    const body = bytes.subarray(0, SIGNED);
    if (!timingSafeEqual(bytes.subarray(SIGNED), this.mac(body, owner))) return null;
    return {
      id,
      key: uuidOf(body.subarray(0, KEY_BYTES)),
      replica: uuidOf(body.subarray(KEY_BYTES, KEY_BYTES + REPLICA_BYTES)),
      beat: body.readUInt32BE(KEY_BYTES + REPLICA_BYTES),
    };
  }

  private mac(body: Buffer, owner: string): Buffer {
    return createHmac('sha256', this.macKey).update(body).update(owner).digest().subarray(0, MAC_BYTES);
  }
}
