/**
 * Who is asking (issue 76): the principal of a request, answered here once for admission (the budget
 * bucket), turns in flight (the per-principal cap), the chat routes and the run routes (a run's owner).
 *
 * A principal is a user, named by the front end's `user_id` (a hash; USER_ID_PATTERN), or every
 * signed-out request together, under SIGNED_OUT. That name is reserved: a `user_id` that spells it, in
 * any case, is refused with a 400 (CONTRACT.md "Chat request"), so no user shares the signed-out budget
 * and cap or owns signed-out runs, and no signed-out turn reaches a user's memory. The service's own
 * spend row (`#service`, admission/budget-store.ts) is outside the id alphabet for the same reason.
 */

/** The format of a user id: what the front end sends (CONTRACT.md). */
export const USER_ID_PATTERN = /^[A-Za-z0-9@:+=~-]{1,128}$/;

/** The principal every signed-out request shares (its budget bucket, turn cap and runs). */
export const SIGNED_OUT = 'anonymous';

/** A user id, or SIGNED_OUT. */
export type Principal = string;

/** Whether `id` is reserved (SIGNED_OUT in any case): a request naming it as its user is refused. */
export function isReservedUserId(id: string): boolean {
  return id.toLowerCase() === SIGNED_OUT;
}

/** The principal of a request that names `userId` (null or absent: signed out). */
export function principalOf(userId: string | null | undefined): Principal {
  return userId ?? SIGNED_OUT;
}

/** Whether `principal` is every signed-out request together. */
export function isSignedOut(principal: Principal): boolean {
  return principal === SIGNED_OUT;
}
