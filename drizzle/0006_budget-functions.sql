-- Custom SQL migration: the daily budget's reservation and charge as two functions, so one round trip
-- holds or settles a user's tokens, their money and the service-wide spend together (issue 47).
-- Lock order is always the service row ('#service') first, then the user's, so concurrent calls from any
-- replica serialise on the service row without deadlocking. In READ COMMITTED each statement of a
-- function sees what committed before it, so a reservation reads the total the previous one left.
CREATE OR REPLACE FUNCTION budget_reserve(
  p_bucket text, p_day date, p_tokens bigint, p_nano bigint,
  p_token_limit bigint, p_nano_limit bigint, p_service_limit bigint
) RETURNS TABLE (outcome text, service_nano bigint) LANGUAGE plpgsql AS $$
DECLARE
  v_service bigint;
  v_tokens bigint;
BEGIN
  IF p_service_limit IS NOT NULL THEN
    INSERT INTO token_usage (bucket, day) VALUES ('#service', p_day) ON CONFLICT DO NOTHING;
    SELECT u.nano_usd INTO v_service FROM token_usage u WHERE u.bucket = '#service' AND u.day = p_day FOR UPDATE;
    IF v_service + p_nano > p_service_limit THEN
      RETURN QUERY SELECT 'service'::text, v_service;
      RETURN;
    END IF;
  END IF;
  INSERT INTO token_usage AS u (bucket, day, tokens, nano_usd, updated_at)
    SELECT p_bucket, p_day, p_tokens, p_nano, now()
    WHERE p_tokens <= p_token_limit AND (p_nano_limit IS NULL OR p_nano <= p_nano_limit)
  ON CONFLICT (bucket, day) DO UPDATE
    SET tokens = u.tokens + excluded.tokens, nano_usd = u.nano_usd + excluded.nano_usd, updated_at = now()
    WHERE u.tokens + excluded.tokens <= p_token_limit AND (p_nano_limit IS NULL OR u.nano_usd + excluded.nano_usd <= p_nano_limit)
  RETURNING u.tokens INTO v_tokens;
  IF v_tokens IS NULL THEN
    SELECT u.tokens INTO v_tokens FROM token_usage u WHERE u.bucket = p_bucket AND u.day = p_day;
    RETURN QUERY SELECT CASE WHEN coalesce(v_tokens, 0) + p_tokens > p_token_limit THEN 'tokens' ELSE 'spend' END, v_service;
    RETURN;
  END IF;
  IF p_service_limit IS NOT NULL THEN
    UPDATE token_usage u SET tokens = u.tokens + p_tokens, nano_usd = u.nano_usd + p_nano, updated_at = now()
      WHERE u.bucket = '#service' AND u.day = p_day RETURNING u.nano_usd INTO v_service;
  END IF;
  RETURN QUERY SELECT 'ok'::text, v_service;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION budget_charge(
  p_bucket text, p_day date, p_tokens bigint, p_nano bigint, p_service boolean
) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  v_tokens bigint;
BEGIN
  IF p_service THEN
    INSERT INTO token_usage AS u (bucket, day, tokens, nano_usd, updated_at)
      VALUES ('#service', p_day, greatest(0, p_tokens), greatest(0, p_nano), now())
    ON CONFLICT (bucket, day) DO UPDATE
      SET tokens = greatest(0, u.tokens + p_tokens), nano_usd = greatest(0, u.nano_usd + p_nano), updated_at = now();
  END IF;
  INSERT INTO token_usage AS u (bucket, day, tokens, nano_usd, updated_at)
    VALUES (p_bucket, p_day, greatest(0, p_tokens), greatest(0, p_nano), now())
  ON CONFLICT (bucket, day) DO UPDATE
    SET tokens = greatest(0, u.tokens + p_tokens), nano_usd = greatest(0, u.nano_usd + p_nano), updated_at = now()
  RETURNING u.tokens INTO v_tokens;
  RETURN v_tokens;
END
$$;
